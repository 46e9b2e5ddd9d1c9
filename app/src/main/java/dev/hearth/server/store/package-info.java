/**
 * The store every feature persists to: the pool and dialect (SQLite or PostgreSQL), Flyway
 * migrations, ids, pages and cursors, JSON columns, and the reads named tables share (NamedRows).
 */
package dev.hearth.server.store;
