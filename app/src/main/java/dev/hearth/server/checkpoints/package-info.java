/**
 * The checkpoint record shared by computers and databases, its states and store, and the
 * checkpoint.create and checkpoint.delete operation kinds that hand the work to each source
 * type's handler.
 */
package dev.hearth.server.checkpoints;
