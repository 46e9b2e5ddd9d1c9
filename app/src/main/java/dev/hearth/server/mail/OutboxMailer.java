package dev.hearth.server.mail;

import dev.hearth.fs.Disk;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With no SMTP configured, mail is written to {@code {data_dir}/outbox/} (one .eml file a message,
 * mode 0600) and logged, so a single-user install can still sign in by email.
 */
public final class OutboxMailer implements Mailer {
    private static final Logger LOG = LoggerFactory.getLogger(OutboxMailer.class);
    private final Path outbox;

    public OutboxMailer(Path outbox) {
        this.outbox = outbox;
    }

    @Override
    public void send(Mail mail) {
        String text = "To: " + mail.to() + "\nSubject: " + mail.subject() + "\n\n" + mail.text() + "\n";
        try {
            Files.createDirectories(outbox, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            Path file = outbox.resolve(Ids.next() + ".eml");
            Disk.writePrivate(file, text);
            LOG.info("no SMTP configured; mail written to {}:\n{}", file, text);
        } catch (IOException e) {
            throw new MailException("cannot write to outbox " + outbox + ": " + e.getMessage(), e);
        }
    }
}
