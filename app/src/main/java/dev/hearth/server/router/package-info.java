/**
 * The computer router: a reverse proxy that maps {computer}--{workspace} host names to a
 * computer's published port, wakes a sleeping computer on the first request, guards private ports
 * and relays WebSockets.
 */
package dev.hearth.server.router;
