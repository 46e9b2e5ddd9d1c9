/**
 * Host processes, shared by the drivers: running a command with a time limit, kill(2) for signals
 * Java cannot send, and becoming a child subreaper so detached sandboxes are reaped.
 */
package dev.hearth.server.process;
