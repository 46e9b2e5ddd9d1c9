/**
 * gVisor's runsc as the SandboxRuntime, one concern per file: invoking runsc, booting or
 * restoring a bundle, the network namespace and veth of each slot, the OCI spec, execs and their
 * kill-the-tree, terminals over a console socket, cgroups.
 */
package dev.hearth.server.sandbox.runsc;
