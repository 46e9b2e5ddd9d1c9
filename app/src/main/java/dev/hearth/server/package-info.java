/**
 * The composition root of hearth serve: Config, the listeners, and HearthServer, which builds
 * every part with new, one feature per method. Nothing else imports this package.
 */
package dev.hearth.server;
