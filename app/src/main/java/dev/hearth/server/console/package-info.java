/** The web console's files, served by {@code hearth serve} at {@code /} of the API's listener. */
package dev.hearth.server.console;
