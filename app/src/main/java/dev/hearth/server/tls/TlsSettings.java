package dev.hearth.server.tls;

import java.util.Optional;

/**
 * How {@code hearth serve} speaks TLS. {@code api} and {@code router} are each listener's certificate
 * (absent: plain HTTP); {@code selfSigned} makes a CA and one certificate for both when they are not
 * given; {@code redirectHttp} is a host:port where plain HTTP is answered with a redirect to HTTPS.
 */
public record TlsSettings(Optional<TlsFiles> api, Optional<TlsFiles> router, boolean selfSigned,
                          Optional<String> redirectHttp) {
    public static final TlsSettings NONE = new TlsSettings(Optional.empty(), Optional.empty(), false, Optional.empty());

    public boolean any() {
        return api.isPresent() || router.isPresent() || selfSigned;
    }
}
