package dev.hearth.server.router;

import java.time.Duration;
import java.util.Optional;

/**
 * The computer router: where it listens, and the domain and port its URLs name
 * ({@code {publicScheme}://{computer}--{workspace}.{domain}:{publicPort}}); port 0 picks a free one.
 */
public record RouterSettings(String host, int port, String domain, Optional<Integer> publicPort, Duration timeout,
                             Optional<String> publicScheme) {
    public static final RouterSettings DEFAULT = new RouterSettings("127.0.0.1", 7301, "localhost", Optional.empty());
    // How long a computer may stay silent on a request before the router answers 504.
    public static final Duration TIMEOUT = Duration.ofSeconds(120);

    public RouterSettings(String host, int port, String domain, Optional<Integer> publicPort) {
        this(host, port, domain, publicPort, TIMEOUT, Optional.empty());
    }

    public RouterSettings withTimeout(Duration t) {
        return new RouterSettings(host, port, domain, publicPort, t, publicScheme);
    }

    /** The scheme computer URLs name when a front proxy serves them (default: https if the router has a certificate). */
    public RouterSettings withPublicScheme(Optional<String> scheme) {
        return new RouterSettings(host, port, domain, publicPort, timeout, scheme);
    }
}
