/**
 * What an operator scrapes: the Prometheus registry of {@code hearth serve} (requests by route
 * template and status, resources by state, the store's pool, the JVM and virtual thread pinning)
 * and the listener that serves it on {@code --metrics-listen}. Labels carry no workspace data.
 */
package dev.hearth.server.metrics;
