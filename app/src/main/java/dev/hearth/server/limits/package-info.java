/** The bounds every caller is held to: request rates, failed sign-ins, disk and processes. */
package dev.hearth.server.limits;
