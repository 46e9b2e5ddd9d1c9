package dev.hearth.server.tls;

import java.nio.file.Path;

/** A server certificate (PEM, the chain after it) and its private key (PEM: PKCS#8, PKCS#1 or SEC1). */
public record TlsFiles(Path certificate, Path key) {
}
