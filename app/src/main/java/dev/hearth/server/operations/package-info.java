/**
 * Durable operations: long work recorded in the store, run on virtual threads under a lease,
 * followed by clients (with long polls), resumed or failed after a crash according to its kind.
 */
package dev.hearth.server.operations;
