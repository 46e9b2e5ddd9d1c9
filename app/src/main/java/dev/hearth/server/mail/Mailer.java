package dev.hearth.server.mail;

/** Sends mail: over SMTP when configured, else into the data directory's outbox. */
public sealed interface Mailer permits SmtpMailer, OutboxMailer {
    /** Delivers or throws {@link MailException}; the caller decides what a failure means. */
    void send(Mail mail);

    final class MailException extends RuntimeException {
        public MailException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
