package dev.hearth.server.tls;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Reads a PEM certificate chain and private key into a {@link KeyStore} for Jetty. A pair that does
 * not belong together (a renewal caught half-written) is refused rather than served.
 */
public final class PemKeyStore {
    static final String ALIAS = "hearth";
    // The key store lives in memory only; PKCS#12 wants some password.
    static final char[] PASSWORD = "hearth".toCharArray();

    private PemKeyStore() {
    }

    public static KeyStore load(TlsFiles files) throws IOException, GeneralSecurityException {
        List<X509Certificate> chain = certificates(files);
        PrivateKey key = privateKey(files);
        requirePair(key, chain.getFirst(), files);
        var store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry(ALIAS, key, PASSWORD, chain.toArray(X509Certificate[]::new));
        return store;
    }

    /** The certificates of a PEM file, in order (the server's first). */
    public static List<X509Certificate> certificates(TlsFiles files) throws IOException, GeneralSecurityException {
        var chain = new ArrayList<X509Certificate>();
        var converter = new JcaX509CertificateConverter();
        try (Reader in = Files.newBufferedReader(files.certificate()); var pem = new PEMParser(in)) {
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                if (o instanceof X509CertificateHolder holder) {
                    chain.add(converter.getCertificate(holder));
                }
            }
        }
        if (chain.isEmpty()) {
            throw new GeneralSecurityException(files.certificate() + " holds no PEM certificate");
        }
        return chain;
    }

    private static PrivateKey privateKey(TlsFiles files) throws IOException, GeneralSecurityException {
        var converter = new JcaPEMKeyConverter();
        try (Reader in = Files.newBufferedReader(files.key()); var pem = new PEMParser(in)) {
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                switch (o) {
                    case PEMKeyPair pair -> {
                        return converter.getPrivateKey(pair.getPrivateKeyInfo());
                    }
                    case PrivateKeyInfo info -> {
                        return converter.getPrivateKey(info);
                    }
                    default -> {
                        // EC parameters and other blocks that may precede the key
                    }
                }
            }
        }
        throw new GeneralSecurityException(files.key() + " holds no unencrypted PEM private key");
    }

    private static void requirePair(PrivateKey key, X509Certificate cert, TlsFiles files)
            throws GeneralSecurityException {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm();
        };
        byte[] probe = "hearth".getBytes();
        var signer = Signature.getInstance(algorithm);
        signer.initSign(key);
        signer.update(probe);
        byte[] signature = signer.sign();
        var verifier = Signature.getInstance(algorithm);
        verifier.initVerify(cert.getPublicKey());
        verifier.update(probe);
        if (!verifier.verify(signature)) {
            throw new GeneralSecurityException(files.key() + " is not the key of the certificate in " + files.certificate());
        }
    }
}
