package dev.hearth.server.crypto;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.text.ParseException;
import java.util.Base64;

/** Key pairs for private-key principals: P-256 generated here, or a supplied EC P-256 / RSA public key. */
public final class KeyMaterial {
    private KeyMaterial() {
    }

    public static KeyPair generate() {
        try {
            var generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no P-256 support in this JDK", e);
        }
    }

    public static String privatePem(PrivateKey key) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded());
        return "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n";
    }

    public static JWK publicJwk(PublicKey key, String keyId) {
        return switch (key) {
            case ECPublicKey ec -> new ECKey.Builder(Curve.P_256, ec).keyID(keyId).build();
            case RSAPublicKey rsa -> new RSAKey.Builder(rsa).keyID(keyId).build();
            default -> throw new IllegalArgumentException("unsupported key type " + key.getAlgorithm());
        };
    }

    /**
     * Parses a supplied public key (PEM SubjectPublicKeyInfo or a JWK), accepting EC P-256 and RSA of
     * 2048 bits or more. Throws IllegalArgumentException with a reason a user can act on.
     */
    public static JWK parsePublic(String text, String keyId) {
        String trimmed = text.strip();
        try {
            JWK jwk = trimmed.startsWith("{") ? JWK.parse(trimmed) : publicJwk(pemPublic(trimmed), keyId);
            if (jwk.isPrivate()) {
                throw new IllegalArgumentException("send only the public key; this one holds private parts");
            }
            return checked(jwk, keyId);
        } catch (ParseException | GeneralSecurityException | JOSEException e) {
            throw new IllegalArgumentException("not a PEM public key or JWK: " + e.getMessage());
        }
    }

    private static JWK checked(JWK jwk, String keyId) throws JOSEException {
        return switch (jwk) {
            case ECKey ec when Curve.P_256.equals(ec.getCurve()) -> new ECKey.Builder(Curve.P_256, ec.toECPublicKey()).keyID(keyId).build();
            case RSAKey rsa when rsa.size() >= 2048 -> new RSAKey.Builder(rsa.toRSAPublicKey()).keyID(keyId).build();
            default -> throw new IllegalArgumentException("use an EC P-256 key (ES256) or an RSA key of at least 2048 bits (RS256)");
        };
    }

    private static PublicKey pemPublic(String pem) throws GeneralSecurityException {
        byte[] der = pemBody(pem, "PUBLIC KEY");
        try {
            return KeyFactory.getInstance("EC").generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException notEc) {
            return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(der));
        }
    }

    private static byte[] pemBody(String pem, String label) throws GeneralSecurityException {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf(end);
        if (from < 0 || to < from) {
            throw new GeneralSecurityException("expected a PEM block " + begin);
        }
        try {
            return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new GeneralSecurityException("the PEM block is not base64");
        }
    }
}
