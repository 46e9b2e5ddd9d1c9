/**
 * The HTTP layer, which only translates: the route table, one request as an Exchange, the Reply,
 * the Scope each route declares, the Jetty handler that renders every ApiException as the error
 * envelope, and idempotency as middleware. It asks a Guard who calls; it calls no feature.
 */
package dev.hearth.server.http;
