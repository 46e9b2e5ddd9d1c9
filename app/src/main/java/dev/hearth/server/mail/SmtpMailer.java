package dev.hearth.server.mail;

import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.util.Properties;

/** Sends mail over SMTP with Angus Mail. */
public final class SmtpMailer implements Mailer {
    private final SmtpSettings settings;
    private final Session session;

    public SmtpMailer(SmtpSettings settings) {
        this.settings = settings;
        var props = new Properties();
        props.put("mail.smtp.host", settings.host());
        props.put("mail.smtp.port", String.valueOf(settings.port()));
        props.put("mail.smtp.connectiontimeout", "10000");
        props.put("mail.smtp.timeout", "10000");
        props.put("mail.smtp.writetimeout", "10000");
        props.put("mail.smtp.auth", String.valueOf(settings.username() != null));
        switch (settings.security()) {
            case "starttls" -> {
                props.put("mail.smtp.starttls.enable", "true");
                props.put("mail.smtp.starttls.required", "true");
            }
            case "tls" -> props.put("mail.smtp.ssl.enable", "true");
            default -> { }
        }
        this.session = Session.getInstance(props);
    }

    @Override
    public void send(Mail mail) {
        try {
            var message = new MimeMessage(session);
            message.setFrom(new InternetAddress(settings.from()));
            message.setRecipient(Message.RecipientType.TO, new InternetAddress(mail.to()));
            message.setSubject(mail.subject(), "UTF-8");
            message.setText(mail.text(), "UTF-8");
            if (settings.username() != null) {
                Transport.send(message, settings.username(), settings.password());
            } else {
                Transport.send(message);
            }
        } catch (MessagingException e) {
            throw new MailException("SMTP delivery to " + mail.to() + " failed: " + e.getMessage(), e);
        }
    }
}
