/**
 * A workspace's variables (secrets): sealed at rest by the keyring, never listed with values,
 * resolved into computers' environments when a process starts.
 */
package dev.hearth.server.variables;
