package dev.hearth.server;

import dev.hearth.server.mail.SmtpSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Everything {@code hearth serve} can be told. {@code publicUrl} is the {base_url} clients use
 * (it names the token audience); when absent it is http://{host}:{port}/v1.
 */
public record Config(String host, int port, Path dataDir, String store, Optional<String> publicUrl,
                     Duration accessTokenLifetime, Duration sessionLifetime, Duration signingKeyRotation,
                     long maxBodyBytes, Optional<SmtpSettings> smtp, Clock clock) {

    public static Config defaults(Path dataDir) {
        return new Config("127.0.0.1", 7300, dataDir, null, Optional.empty(), Duration.ofMinutes(15),
                Duration.ofDays(30), Duration.ofDays(30), 1 << 20, Optional.empty(), Clock.systemUTC());
    }

    public Config withPort(int p) {
        return new Config(host, p, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime,
                signingKeyRotation, maxBodyBytes, smtp, clock);
    }

    public Config withStore(String s) {
        return new Config(host, port, dataDir, s, publicUrl, accessTokenLifetime, sessionLifetime,
                signingKeyRotation, maxBodyBytes, smtp, clock);
    }

    public Config withSmtp(SmtpSettings s) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime,
                signingKeyRotation, maxBodyBytes, Optional.of(s), clock);
    }

    public Config withClock(Clock c) {
        return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime,
                signingKeyRotation, maxBodyBytes, smtp, c);
    }
}
