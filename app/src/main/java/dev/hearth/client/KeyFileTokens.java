package dev.hearth.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.hearth.api.ApiException;
import dev.hearth.api.JsonTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.Optional;
import java.util.UUID;

/**
 * Tokens for a private-key principal: signs an RFC 7523 assertion with the key file's private key,
 * trades it at the key file's token_url, and reuses the access token until shortly before it expires.
 */
public final class KeyFileTokens implements TokenSource {
    private final JsonNode keyFile;
    private final Optional<TokenCache> cache;
    private String accessToken;
    private Instant expiresAt = Instant.EPOCH;
    private boolean fromCache;

    public KeyFileTokens(JsonNode keyFile) {
        this(keyFile, Optional.empty());
    }

    private KeyFileTokens(JsonNode keyFile, Optional<TokenCache> cache) {
        this.keyFile = keyFile;
        this.cache = cache;
    }

    /** The same key file, its tokens kept in {@code cache} between runs (the CLI's). */
    public KeyFileTokens cachedIn(TokenCache tokenCache) {
        return new KeyFileTokens(keyFile, Optional.of(tokenCache));
    }

    public static KeyFileTokens read(Path file) {
        try {
            return new KeyFileTokens(JsonTrees.read(Files.readString(file)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read key file " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized Optional<String> token(HearthClient client) {
        if (accessToken == null || Instant.now().plusSeconds(60).isAfter(expiresAt)) {
            var cached = cache.flatMap(c -> c.get(TokenCache.keyOf(keyFile)));
            if (cached.isPresent()) {
                accessToken = cached.get().accessToken();
                expiresAt = cached.get().expiresAt();
                fromCache = true;
            } else {
                fetch(client);
            }
        }
        return Optional.of(accessToken);
    }

    @Override
    public synchronized boolean invalidate() {
        // A token fetched in this run that the server refuses (a key revoked since) stays: the caller
        // sees the server's 401, not a token request failing in its place.
        if (!fromCache) {
            return false;
        }
        cache.ifPresent(c -> c.remove(TokenCache.keyOf(keyFile)));
        accessToken = null;
        fromCache = false;
        return true;
    }

    private void fetch(HearthClient client) {
        String form = "grant_type=" + enc("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + enc(assertion());
        var response = client.postUnauthenticated(URI.create(keyFile.path("token_url").asText()),
                "application/x-www-form-urlencoded", form.getBytes(StandardCharsets.UTF_8));
        if (response.status() != 200) {
            throw ApiException.fromResponse(response.status(), response.body());
        }
        accessToken = response.body().path("access_token").asText();
        expiresAt = Instant.now().plusSeconds(response.body().path("expires_in").asLong());
        fromCache = false;
        cache.ifPresent(c -> c.put(TokenCache.keyOf(keyFile), accessToken, expiresAt));
    }

    /** A fresh assertion: iss = sub = subject, aud = audience, one minute of life, a unique jti. */
    public String assertion() {
        try {
            PrivateKey key = privateKey(keyFile.path("private_key").asText());
            boolean ec = key instanceof ECPrivateKey;
            var header = new JWSHeader.Builder(ec ? JWSAlgorithm.ES256 : JWSAlgorithm.RS256)
                    .keyID(keyFile.path("key_id").asText()).type(JOSEObjectType.JWT).build();
            Instant now = Instant.now();
            var claims = new JWTClaimsSet.Builder().issuer(keyFile.path("subject").asText())
                    .subject(keyFile.path("subject").asText()).audience(keyFile.path("audience").asText())
                    .issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(60)))
                    .jwtID(UUID.randomUUID().toString()).build();
            var jwt = new SignedJWT(header, claims);
            JWSSigner signer = ec ? new ECDSASigner((ECPrivateKey) key) : new RSASSASigner(key);
            jwt.sign(signer);
            return jwt.serialize();
        } catch (GeneralSecurityException | JOSEException e) {
            throw new IllegalArgumentException("the key file's private_key is not a usable PKCS#8 PEM key: " + e.getMessage(), e);
        }
    }

    static PrivateKey privateKey(String pem) throws GeneralSecurityException {
        String begin = "-----BEGIN PRIVATE KEY-----";
        String end = "-----END PRIVATE KEY-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf(end);
        if (from < 0 || to < from) {
            throw new GeneralSecurityException("expected a PEM block " + begin);
        }
        var spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to)));
        try {
            return KeyFactory.getInstance("EC").generatePrivate(spec);
        } catch (GeneralSecurityException notEc) {
            return KeyFactory.getInstance("RSA").generatePrivate(spec);
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
