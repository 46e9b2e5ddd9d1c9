package dev.hearth.server.router;

import java.time.Duration;
import java.util.Optional;

/**
 * The computer router: where it listens, and the domain and port its URLs name
 * ({@code http://{computer}--{workspace}.{domain}:{publicPort}}); port 0 picks a free one.
 */
public record RouterSettings(String host, int port, String domain, Optional<Integer> publicPort, Duration timeout) {
    public static final RouterSettings DEFAULT = new RouterSettings("127.0.0.1", 7301, "localhost", Optional.empty());
    // How long a computer may stay silent on a request before the router answers 504.
    public static final Duration TIMEOUT = Duration.ofSeconds(120);

    public RouterSettings(String host, int port, String domain, Optional<Integer> publicPort) {
        this(host, port, domain, publicPort, TIMEOUT);
    }

    public RouterSettings withTimeout(Duration t) {
        return new RouterSettings(host, port, domain, publicPort, t);
    }
}
