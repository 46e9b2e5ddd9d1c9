package dev.hearth.server.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * A small certificate authority (ECDSA P-256): the root of {@code --tls-self-signed}, and what tests
 * make their own CAs with. It issues server certificates for DNS names and IP addresses.
 */
public final class CertificateAuthority {
    private final X509Certificate certificate;
    private final PrivateKey key;

    private CertificateAuthority(X509Certificate certificate, PrivateKey key) {
        this.certificate = certificate;
        this.key = key;
    }

    public static CertificateAuthority create(String name, Duration validity) throws GeneralSecurityException {
        KeyPair pair = newKey();
        var subject = new X500Name("CN=" + name);
        Instant now = Instant.now();
        var builder = new JcaX509v3CertificateBuilder(subject, serial(), Date.from(now.minus(Duration.ofMinutes(5))),
                Date.from(now.plus(validity)), subject, pair.getPublic());
        var ext = new JcaX509ExtensionUtils();
        try {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
        return new CertificateAuthority(sign(builder, pair.getPrivate()), pair.getPrivate());
    }

    /** Reads a CA this class wrote. */
    public static CertificateAuthority read(TlsFiles files) throws IOException, GeneralSecurityException {
        var store = PemKeyStore.load(files);
        return new CertificateAuthority((X509Certificate) store.getCertificate(PemKeyStore.ALIAS),
                (PrivateKey) store.getKey(PemKeyStore.ALIAS, PemKeyStore.PASSWORD));
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** SHA-256 of the certificate, as {@code openssl x509 -fingerprint -sha256} prints it. */
    public String fingerprint() {
        return fingerprint(certificate);
    }

    public static String fingerprint(X509Certificate cert) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes the CA's certificate (world-readable) and key (owner only). */
    public void write(TlsFiles files) throws IOException {
        Pem.write(files.certificate(), Pem.of(certificate), false);
        Pem.write(files.key(), Pem.of(new PemObject("PRIVATE KEY", key.getEncoded())), true);
    }

    /** Issues a server certificate for {@code names} (DNS names, wildcards, IP addresses) and writes it with its key. */
    public X509Certificate issue(List<String> names, Duration validity, TlsFiles out) throws GeneralSecurityException,
            IOException {
        KeyPair pair = newKey();
        Instant now = Instant.now();
        var builder = new JcaX509v3CertificateBuilder(certificate, serial(), Date.from(now.minus(Duration.ofMinutes(5))),
                Date.from(now.plus(validity)), new X500Name("CN=" + names.getFirst()), pair.getPublic());
        var ext = new JcaX509ExtensionUtils();
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(
                names.stream().map(CertificateAuthority::generalName).toArray(GeneralName[]::new)));
        builder.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
        X509Certificate cert = sign(builder, key);
        Pem.write(out.certificate(), Pem.of(cert) + Pem.of(certificate), false);
        Pem.write(out.key(), Pem.of(new PemObject("PRIVATE KEY", pair.getPrivate().getEncoded())), true);
        return cert;
    }

    private static GeneralName generalName(String name) {
        boolean ip = name.chars().allMatch(c -> Character.isDigit(c) || c == '.') || name.contains(":");
        if (!ip) {
            return new GeneralName(GeneralName.dNSName, name.toLowerCase(Locale.ROOT));
        }
        try {
            return new GeneralName(GeneralName.iPAddress, InetAddress.ofLiteral(name).getHostAddress());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " is neither a DNS name nor an IP address", e);
        }
    }

    private static KeyPair newKey() throws GeneralSecurityException {
        var generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(127, new SecureRandom()).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
            throws GeneralSecurityException {
        try {
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }

    /** PEM text of certificates and keys (PKCS#8, which carries the EC curve; BouncyCastle's SEC1 output would not). */
    private static final class Pem {
        static String of(Object o) {
            var text = new StringWriter();
            try (var pem = new JcaPEMWriter(text)) {
                pem.writeObject(o);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return text.toString();
        }

        static void write(Path file, String text, boolean secret) throws IOException {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.deleteIfExists(tmp);
            if (secret) {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(tmp, text);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }
}
