package dev.hearth.server.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code hearth serve --tls-self-signed}: a CA kept in {@code {data_dir}/tls} (made once, ten years)
 * and a server certificate it signs for the names the server answers to, made again when the names
 * change or it nears its end. Clients trust {@code ca.pem} ({@code --ca-file}); its fingerprint is
 * logged at every start so that it can be compared out of band.
 */
public final class SelfSignedTls {
    private static final Logger LOG = LoggerFactory.getLogger(SelfSignedTls.class);
    private static final Duration CA_LIFE = Duration.ofDays(3650);
    // Browsers refuse server certificates that live longer than 398 days.
    private static final Duration SERVER_LIFE = Duration.ofDays(397);
    private static final Duration RENEW_BEFORE = Duration.ofDays(30);

    /** The server's certificate, and the CA clients are to trust. */
    public record Issued(TlsFiles server, Path caCertificate, String fingerprint) {
    }

    private SelfSignedTls() {
    }

    public static Issued ensure(Path dir, List<String> names) throws IOException, GeneralSecurityException {
        var caFiles = new TlsFiles(dir.resolve("ca.pem"), dir.resolve("ca-key.pem"));
        CertificateAuthority ca;
        if (Files.exists(caFiles.certificate()) && Files.exists(caFiles.key())) {
            ca = CertificateAuthority.read(caFiles);
        } else {
            ca = CertificateAuthority.create("Hearth CA " + names.getFirst(), CA_LIFE);
            ca.write(caFiles);
            LOG.info("made a certificate authority for --tls-self-signed: {}", caFiles.certificate());
        }
        var server = new TlsFiles(dir.resolve("server.pem"), dir.resolve("server-key.pem"));
        if (!current(server, ca, names)) {
            ca.issue(names, SERVER_LIFE, server);
            LOG.info("issued a server certificate for {}", names);
        }
        LOG.info("TLS with a self-signed CA: clients pass --ca-file {} (SHA-256 fingerprint {})",
                caFiles.certificate().toAbsolutePath(), ca.fingerprint());
        return new Issued(server, caFiles.certificate(), ca.fingerprint());
    }

    private static boolean current(TlsFiles server, CertificateAuthority ca, List<String> names) {
        if (!Files.exists(server.certificate()) || !Files.exists(server.key())) {
            return false;
        }
        try {
            var cert = (X509Certificate) PemKeyStore.load(server).getCertificate(PemKeyStore.ALIAS);
            cert.verify(ca.certificate().getPublicKey());
            return cert.getNotAfter().toInstant().isAfter(Instant.now().plus(RENEW_BEFORE))
                    && alternativeNames(cert).equals(new HashSet<>(names));
        } catch (IOException | GeneralSecurityException e) {
            LOG.warn("replacing the self-signed server certificate {}: {}", server.certificate(), e.getMessage());
            return false;
        }
    }

    private static Set<String> alternativeNames(X509Certificate cert) throws CertificateParsingException {
        var names = new HashSet<String>();
        var all = cert.getSubjectAlternativeNames();
        if (all != null) {
            all.forEach(entry -> names.add(String.valueOf(entry.get(1))));
        }
        return names;
    }
}
