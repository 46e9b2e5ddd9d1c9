package dev.hearth.server.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Set;
import org.eclipse.jetty.util.Scanner;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listener's TLS: Jetty's {@link SslContextFactory} loaded from PEM files, and a Jetty
 * {@link Scanner} on those files that reloads it when they change, as certbot and cert-manager
 * renew them. Connections already open keep their session; new ones get the new certificate. A pair
 * that cannot be loaded (half-written, mismatched) is logged and the last good one kept. Added to
 * the Jetty server as a bean, so it starts and stops with it.
 */
public final class ServerTls extends ContainerLifeCycle implements Scanner.BulkListener {
    private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);
    // Jetty's key-store scanner polls once a second too.
    private static final int SCAN_SECONDS = 1;

    private final String name;
    private final TlsFiles files;
    private final SslContextFactory.Server factory;

    public ServerTls(String name, TlsFiles files) throws IOException, GeneralSecurityException {
        this.name = name;
        this.files = files;
        this.factory = new SslContextFactory.Server();
        factory.setKeyStore(PemKeyStore.load(files));
        factory.setKeyStorePassword(new String(PemKeyStore.PASSWORD));
        factory.setIncludeProtocols("TLSv1.2", "TLSv1.3");
        var scanner = new Scanner(null, true);
        scanner.addFile(files.certificate().toAbsolutePath());
        scanner.addFile(files.key().toAbsolutePath());
        scanner.setScanInterval(SCAN_SECONDS);
        scanner.setReportExistingFilesOnStartup(false);
        scanner.addListener(this);
        addBean(scanner);
    }

    public SslContextFactory.Server factory() {
        return factory;
    }

    @Override
    public void pathsChanged(Set<Path> paths) {
        KeyStore store;
        try {
            store = PemKeyStore.load(files);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            LOG.warn("{}: keeping the certificate in use, the new one cannot be loaded: {}", name, e.getMessage());
            return;
        }
        try {
            factory.reload(f -> f.setKeyStore(store));
            LOG.info("{}: reloaded the certificate from {}", name, files.certificate());
        } catch (Exception e) {
            LOG.warn("{}: reloading the certificate failed: {}", name, e.toString());
        }
    }
}
