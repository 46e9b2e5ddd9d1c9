package dev.hearth.server.mail;

/** How to reach the SMTP server. {@code security}: none, starttls (required) or tls (implicit). */
public record SmtpSettings(String host, int port, String security, String username, String password, String from) {
}
