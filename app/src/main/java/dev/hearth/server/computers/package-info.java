/**
 * Computers: the API's rules (ComputerService), the lifecycle of their sandboxes (Lifecycle,
 * Boots, Restores), exec, the router's side (RouteTargets), checkpoints, the supervisor that
 * restarts and auto-sleeps them, and the reconcile on start. Per-computer Gates serialize
 * changes; different computers never wait for each other.
 */
package dev.hearth.server.computers;
