package dev.hearth.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Which servers the client believes: the JDK's CAs, or only the CAs of a PEM file
 * ({@code --ca-file}, {@code HEARTH_CA_FILE}: a self-signed Hearth's {@code ca.pem}, a company CA).
 * Verification is never turned off.
 */
public final class Trust {
    private Trust() {
    }

    /** An SSL context that trusts exactly the certificates in {@code pemFile}. */
    public static SSLContext of(Path pemFile) {
        try (InputStream in = Files.newInputStream(pemFile)) {
            Collection<? extends Certificate> cas = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (cas.isEmpty()) {
                throw new IllegalArgumentException("the CA file " + pemFile + " holds no PEM certificate");
            }
            var store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (var ca : cas) {
                store.setCertificateEntry("ca-" + i++, ca);
            }
            var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            var context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the CA file " + pemFile + ": " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the CA file " + pemFile + " is not usable: " + e.getMessage(), e);
        }
    }

    /** What a failure to reach {@code url} tells the user, naming the certificate when that was the trouble. */
    public static UncheckedIOException unreachable(String url, Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLHandshakeException handshake) {
                return new UncheckedIOException("cannot verify the TLS certificate of " + url + " ("
                        + handshake.getMessage() + "); if it comes from your own CA, pass that CA with --ca-file "
                        + "or HEARTH_CA_FILE", handshake);
            }
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return new UncheckedIOException("cannot reach " + url + ": " + message,
                e instanceof IOException io ? io : new IOException(e));
    }
}
