/**
 * The PostgreSQL driver: clusters made from a template, started, stopped, copied and reset; TLS
 * material; pgbouncer in front of them all; SCRAM verifiers computed in Java.
 */
package dev.hearth.server.postgres;
