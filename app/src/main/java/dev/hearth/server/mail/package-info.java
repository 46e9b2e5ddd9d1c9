/**
 * Mail: SMTP through Angus Mail, or an outbox directory when no SMTP server is configured.
 */
package dev.hearth.server.mail;
