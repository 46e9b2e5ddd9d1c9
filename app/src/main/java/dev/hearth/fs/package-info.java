/**
 * File helpers shared by the server and the CLI: private files, tree deletion, sizes.
 */
package dev.hearth.fs;
