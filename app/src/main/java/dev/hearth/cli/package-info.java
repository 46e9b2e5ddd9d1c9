/**
 * The hearth command line: picocli commands that talk to the server only through the client, and
 * hearth serve, which starts it.
 */
package dev.hearth.cli;
