package dev.hearth.server.postgres;

import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The TLS material of every database: one Hearth CA (ECDSA P-256; its key stays in a directory
 * only Hearth reads; nodes sharing a store share it) and one server certificate it signs, naming
 * the public host names, shared by every cluster and by pgbouncer of this node. Made with the openssl command-line tool, exactly as measured in
 * design/measured/postgres-clusters.md; the server certificate is made again when the names change.
 */
public final class Certificates {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    private final Path caDir;
    private final Path serverDir;

    private Certificates(Path caDir, Path serverDir) {
        this.caDir = caDir;
        this.serverDir = serverDir;
    }

    /**
     * Makes what is missing: the CA in {@code caDir}, the server pair in {@code serverDir} (again when
     * the names or the CA changed).
     */
    public static Certificates ensure(Path caDir, Path serverDir, Set<String> hostNames, PostgresHost host)
            throws IOException {
        var certs = new Certificates(caDir, serverDir);
        Files.createDirectories(caDir);
        Files.setPosixFilePermissions(caDir, PosixFilePermissions.fromString("rwx------"));
        if (!Files.exists(certs.caCertificate())) {
            certs.makeCa();
        }
        Files.createDirectories(serverDir);
        String sans = subjectAltNames(hostNames);
        // The names and the CA the server pair was made for: a change of either makes it again.
        String made = sans + "\nca " + fingerprint(certs.caCertificate());
        Path sansFile = serverDir.resolve("server.sans");
        if (!Files.exists(certs.serverCertificate()) || !Files.exists(sansFile) || !Files.readString(sansFile).equals(made)) {
            certs.makeServer(sans, host);
            Files.writeString(sansFile, made);
        }
        return certs;
    }

    private static String fingerprint(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    public Path caCertificate() {
        return caDir.resolve("ca.crt");
    }

    public String caPem() {
        try {
            return Files.readString(caCertificate());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path serverCertificate() {
        return serverDir.resolve("server.crt");
    }

    public Path serverKey() {
        return serverDir.resolve("server.key");
    }

    private void makeCa() {
        Commands.check(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-days", "3650", "-subj", "/CN=Hearth database CA",
                "-keyout", caDir.resolve("ca.key").toString(), "-out", caCertificate().toString(),
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"), LIMIT);
    }

    private void makeServer(String sans, PostgresHost host) throws IOException {
        Path csr = serverDir.resolve("server.csr");
        Path ext = serverDir.resolve("server.ext");
        Commands.check(List.of("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-subj", "/CN=Hearth databases", "-keyout", serverKey().toString(), "-out", csr.toString()), LIMIT);
        Files.writeString(ext, "subjectAltName=" + sans + "\nextendedKeyUsage=serverAuth\n"
                + "keyUsage=critical,digitalSignature\nbasicConstraints=CA:FALSE\n");
        Commands.check(List.of("openssl", "x509", "-req", "-in", csr.toString(), "-CA", caCertificate().toString(),
                "-CAkey", caDir.resolve("ca.key").toString(), "-CAcreateserial", "-days", "825",
                "-out", serverCertificate().toString(), "-extfile", ext.toString()), LIMIT);
        Files.deleteIfExists(csr);
        Files.deleteIfExists(ext);
        Files.deleteIfExists(caDir.resolve("ca.srl"));
        // PostgreSQL refuses a key that its group or others may read.
        Files.setPosixFilePermissions(serverKey(), PosixFilePermissions.fromString("rw-------"));
        host.giveToClusterUser(serverKey());
        host.giveToClusterUser(serverCertificate());
    }

    /** localhost and 127.0.0.1 always, so that verify-full works on the host itself, plus the public names. */
    private static String subjectAltNames(Set<String> hostNames) {
        var names = new LinkedHashSet<String>();
        names.add("DNS:localhost");
        names.add("IP:127.0.0.1");
        for (String name : hostNames) {
            names.add((name.matches("[0-9.]+") || name.contains(":") ? "IP:" : "DNS:") + name);
        }
        return String.join(",", names);
    }
}
