package dev.hearth.server.mail;

/** A plain-text message to one address. */
public record Mail(String to, String subject, String text) {
}
