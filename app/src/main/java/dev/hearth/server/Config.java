package dev.hearth.server;

import dev.hearth.server.databases.DatabaseSettings;
import dev.hearth.server.mail.SmtpSettings;
import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.router.RouterSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Everything {@code hearth serve} can be told. Start from {@link #defaults} and change what differs.
 * {@code publicUrl} is the {base_url} clients use (it names the token audience); when absent it is
 * http://{host}:{port}/v1. {@code operationKinds} are the kinds of long work this server runs.
 */
public record Config(String host, int port, Path dataDir, String store, Optional<String> publicUrl,
                     Duration accessTokenLifetime, Duration sessionLifetime, Duration signingKeyRotation,
                     long maxBodyBytes, Optional<SmtpSettings> smtp, Optional<Path> encryptionKeys,
                     Duration invitationLifetime, Duration mailRetry, Duration operationLease,
                     List<OperationKind> operationKinds, Clock clock, RouterSettings router,
                     DatabaseSettings databases) {

    public static Config defaults(Path dataDir) {
        return new Config("127.0.0.1", 7300, dataDir, null, Optional.empty(), Duration.ofMinutes(15),
                Duration.ofDays(30), Duration.ofDays(30), 1 << 20, Optional.empty(), Optional.empty(),
                Duration.ofDays(7), Duration.ofSeconds(30), Duration.ofSeconds(30), List.of(), Clock.systemUTC(), RouterSettings.DEFAULT,
                DatabaseSettings.DEFAULT);
    }

    /** The encryption key file: configured, or {@code encryption-keys.json} in the data directory. */
    public Path encryptionKeyFile() {
        return encryptionKeys.orElse(dataDir.resolve("encryption-keys.json"));
    }

    public Config withListen(String h, int p) {
        return new Config(h, p, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, encryptionKeys, invitationLifetime, mailRetry, operationLease, operationKinds, clock, router, databases);
    }

    public Config withPort(int p) {
        return withListen(host, p);
    }

    public Config withStore(String s) {
        return new Config(host, port, dataDir, s, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, encryptionKeys, invitationLifetime, mailRetry, operationLease, operationKinds, clock, router, databases);
    }

    public Config withPublicUrl(Optional<String> url) {
        return new Config(host, port, dataDir, store, url, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, encryptionKeys, invitationLifetime, mailRetry, operationLease, operationKinds, clock, router, databases);
    }

    public Config withSigningKeyRotation(Duration d) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, d,
                maxBodyBytes, smtp, encryptionKeys, invitationLifetime, mailRetry, operationLease, operationKinds, clock, router, databases);
    }

    public Config withSmtp(SmtpSettings s) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, Optional.of(s), encryptionKeys, invitationLifetime, mailRetry, operationLease,
                operationKinds, clock, router, databases);
    }

    public Config withEncryptionKeys(Optional<Path> file) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, file, invitationLifetime, mailRetry, operationLease, operationKinds, clock, router, databases);
    }

    public Config withInvitationLifetime(Duration d) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, encryptionKeys, d, mailRetry, operationLease, operationKinds, clock, router, databases);
    }

    public Config withMailRetry(Duration d) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, encryptionKeys, invitationLifetime, d, operationLease, operationKinds, clock, router, databases);
    }

    public Config withOperations(Duration lease, List<OperationKind> kinds) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, encryptionKeys, invitationLifetime, mailRetry, lease, List.copyOf(kinds), clock, router, databases);
    }

    public Config withRouter(RouterSettings r) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, encryptionKeys, invitationLifetime, mailRetry, operationLease, operationKinds, clock, r, databases);
    }

    public Config withClock(Clock c) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, encryptionKeys, invitationLifetime, mailRetry, operationLease, operationKinds, c, router, databases);
    }

    public Config withDatabases(DatabaseSettings d) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime, signingKeyRotation,
                maxBodyBytes, smtp, encryptionKeys, invitationLifetime, mailRetry, operationLease, operationKinds, clock,
                router, d);
    }
}
