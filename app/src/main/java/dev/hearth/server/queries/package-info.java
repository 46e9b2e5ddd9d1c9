/**
 * A workspace's saved SQL queries: statements people keep by name to run again in the console's
 * SQL editor (or anywhere else). Text only: a saved query runs nothing by itself.
 */
package dev.hearth.server.queries;
