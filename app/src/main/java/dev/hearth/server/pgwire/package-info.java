/**
 * The wake-on-connect proxy: a port per database that reads the first packet of the PostgreSQL
 * protocol, wakes the database through Backends, then relays bytes. Free of Hearth imports behind
 * the Backends interface.
 */
package dev.hearth.server.pgwire;
