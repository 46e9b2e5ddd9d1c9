/**
 * The narrow runtime interface computers run on (SandboxRuntime) and its values: what a sandbox
 * runs (SandboxSpec), its network slot, exec requests and results, terminals. The runsc driver is
 * in sandbox.runsc.
 */
package dev.hearth.server.sandbox;
