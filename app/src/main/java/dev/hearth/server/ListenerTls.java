package dev.hearth.server;

import dev.hearth.server.tls.SelfSignedTls;
import dev.hearth.server.tls.ServerTls;
import dev.hearth.server.tls.TlsFiles;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/** The certificates of the API and the router listeners, as {@code hearth serve} was told (none: plain HTTP). */
record ListenerTls(Optional<ServerTls> api, Optional<ServerTls> router) {

    /** Throws IllegalArgumentException, with the file and the reason, when a certificate cannot be used. */
    static ListenerTls of(Config config) {
        try {
            return load(config);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot serve TLS: " + e.getClass().getSimpleName() + ": "
                    + e.getMessage(), e);
        }
    }

    private static ListenerTls load(Config config) throws IOException, GeneralSecurityException {
        var settings = config.tls();
        Optional<TlsFiles> api = settings.api();
        Optional<TlsFiles> router = settings.router();
        if (settings.selfSigned() && (api.isEmpty() || router.isEmpty())) {
            var issued = SelfSignedTls.ensure(config.dataDir().resolve("tls"), selfSignedNames(config));
            api = api.or(() -> Optional.of(issued.server()));
            router = router.or(() -> Optional.of(issued.server()));
        }
        return new ListenerTls(serverTls("api", api), serverTls("router", router));
    }

    private static Optional<ServerTls> serverTls(String name, Optional<TlsFiles> files)
            throws IOException, GeneralSecurityException {
        return files.isEmpty() ? Optional.empty() : Optional.of(new ServerTls(name, files.get()));
    }

    /** Every name clients may reach this server by: the listen address, the public URL's host, the router's domain. */
    private static List<String> selfSignedNames(Config config) {
        var names = new LinkedHashSet<String>();
        config.publicUrl().map(url -> URI.create(url).getHost()).ifPresent(names::add);
        names.add("localhost");
        names.add("127.0.0.1");
        if (!anyAddress(config.host())) {
            names.add(config.host());
        }
        String domain = config.router().domain();
        names.add(domain);
        names.add("*." + domain);
        return List.copyOf(names);
    }

    private static boolean anyAddress(String host) {
        try {
            return InetAddress.ofLiteral(host).isAnyLocalAddress();
        } catch (IllegalArgumentException name) {
            return false;
        }
    }
}
