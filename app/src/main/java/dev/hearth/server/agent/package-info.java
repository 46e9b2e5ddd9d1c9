/**
 * hearth serve's side of the channel to hearth-agent, the PID 1 of every computer: HTTP on the
 * computer's own address and the agent's port, each request carrying the computer's secret.
 * Commands (framed output), files and archives. Connections are pooled per sandbox, so a sandbox
 * started again on the same address never receives a connection its predecessor left.
 */
package dev.hearth.server.agent;
