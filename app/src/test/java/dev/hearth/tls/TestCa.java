package dev.hearth.tls;

import dev.hearth.client.Trust;
import dev.hearth.server.tls.CertificateAuthority;
import dev.hearth.server.tls.TlsFiles;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLSocket;

/** A CA a test makes in its own directory, the server certificates it issues, and a look at what a port serves. */
final class TestCa {
    final CertificateAuthority ca;
    final Path caFile;

    TestCa(Path dir, String name) throws Exception {
        ca = CertificateAuthority.create(name, Duration.ofDays(1));
        caFile = dir.resolve(name.replace(' ', '-') + ".pem");
        ca.write(new TlsFiles(caFile, dir.resolve(name.replace(' ', '-') + "-key.pem")));
    }

    X509Certificate issue(TlsFiles out, String... names) throws Exception {
        return ca.issue(List.of(names), Duration.ofDays(1), out);
    }

    /** The SHA-256 fingerprint of the (first) certificate in a PEM file. */
    static String fingerprint(Path pem) throws Exception {
        try (var in = Files.newInputStream(pem)) {
            return CertificateAuthority.fingerprint((X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(in));
        }
    }

    /** The serial of the certificate a new TLS connection to {@code port} is shown, verified against this CA. */
    BigInteger served(int port, String serverName) throws Exception {
        try (var socket = (SSLSocket) Trust.of(caFile).getSocketFactory().createSocket("127.0.0.1", port)) {
            var parameters = socket.getSSLParameters();
            parameters.setServerNames(List.of(new SNIHostName(serverName)));
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }
}
