package dev.hearth.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.security.KeyFactory;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.UUID;
import java.util.function.Consumer;

/** Builds RFC 7523 assertions, honest and forged, the way an attacker or a sloppy client would. */
public final class Assertions {
    private Assertions() {
    }

    static JWTClaimsSet.Builder claims(JsonNode keyFile) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder().issuer(keyFile.path("subject").asText()).subject(keyFile.path("subject").asText())
                .audience(keyFile.path("audience").asText()).issueTime(Date.from(now))
                .expirationTime(Date.from(now.plusSeconds(60))).jwtID(UUID.randomUUID().toString());
    }

    public static String sign(JsonNode keyFile, Consumer<JWTClaimsSet.Builder> change) throws Exception {
        var claims = claims(keyFile);
        change.accept(claims);
        return sign(keyFile.path("key_id").asText(), claims.build(), new ECDSASigner(privateKey(keyFile)), JWSAlgorithm.ES256);
    }

    static String sign(String kid, JWTClaimsSet claims, JWSSigner signer, JWSAlgorithm alg) throws Exception {
        var jwt = new SignedJWT(new JWSHeader.Builder(alg).keyID(kid).build(), claims);
        jwt.sign(signer);
        return jwt.serialize();
    }

    static String signedByStranger(String kid, JWTClaimsSet claims) throws Exception {
        var stranger = new ECKeyGenerator(Curve.P_256).generate();
        return sign(kid, claims, new ECDSASigner(stranger), JWSAlgorithm.ES256);
    }

    static String hmacWith(byte[] secret, String kid, JWTClaimsSet claims) throws Exception {
        byte[] key = secret.length >= 32 ? secret : Arrays.copyOf(secret, 32);
        return sign(kid, claims, new MACSigner(key), JWSAlgorithm.HS256);
    }

    static String unsigned(String kid, JWTClaimsSet claims) {
        var enc = Base64.getUrlEncoder().withoutPadding();
        String header = enc.encodeToString(("{\"alg\":\"none\",\"kid\":\"" + kid + "\"}").getBytes());
        return header + "." + enc.encodeToString(claims.toString().getBytes()) + ".";
    }

    static ECPrivateKey privateKey(JsonNode keyFile) throws Exception {
        String pem = keyFile.path("private_key").asText();
        String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return (ECPrivateKey) KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    }
}
