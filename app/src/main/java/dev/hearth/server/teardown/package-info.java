/**
 * Taking a data directory down without its server: every sandbox, network namespace, cgroup,
 * nftables table, mount and process it left on the host ({@code hearth admin teardown}).
 */
package dev.hearth.server.teardown;
