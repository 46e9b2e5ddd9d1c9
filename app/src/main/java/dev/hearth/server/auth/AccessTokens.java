package dev.hearth.server.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.hearth.api.ApiException;
import dev.hearth.server.store.Ids;
import dev.hearth.server.tenancy.Caller.ApiKeyCredential;
import dev.hearth.server.tenancy.Caller.Credential;
import dev.hearth.server.tenancy.Caller.KeyCredential;
import dev.hearth.server.tenancy.Caller.SessionCredential;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Short-lived access tokens: ES256 JWTs with the signing key's id in the header, naming the
 * principal and the credential (key or session) they were issued for.
 */
public final class AccessTokens {
    /** What a verified token says. */
    public record Claims(String principal, Credential credential, Instant expiresAt) {
    }

    // Verifying an ES256 signature costs more than the rest of a request; a token whose signature
    // was verified once is remembered (by its exact bytes) until it expires. Revocation is checked
    // per request against the store, so this cache never extends a revoked credential.
    private static final int MAX_REMEMBERED = 10_000;
    private final ConcurrentHashMap<String, Claims> verified = new ConcurrentHashMap<>();
    private final SigningKeys keys;
    private final Clock clock;
    private final Duration lifetime;
    private final String issuer;

    public AccessTokens(SigningKeys keys, Clock clock, Duration lifetime, String issuer) {
        this.keys = keys;
        this.clock = clock;
        this.lifetime = lifetime;
        this.issuer = issuer;
    }

    public Duration lifetime() {
        return lifetime;
    }

    public String issue(String principal, Credential credential) {
        var key = keys.active();
        Instant now = clock.instant();
        var claims = new JWTClaimsSet.Builder().issuer(issuer).audience(issuer).subject(principal)
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plus(lifetime))).jwtID(Ids.next());
        switch (credential) {
            case KeyCredential k -> claims.claim("hk", k.keyId());
            case SessionCredential s -> claims.claim("sid", s.sessionId());
            case ApiKeyCredential a -> claims.claim("ak", a.keyId());
        }
        var header = new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build();
        var jwt = new SignedJWT(header, claims.build());
        try {
            jwt.sign(new ECDSASigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign an access token", e);
        }
        return jwt.serialize();
    }

    /** Verifies signature, algorithm, issuer, audience and expiry; anything else is a 401. */
    public Claims verify(String token) {
        var known = verified.get(token);
        if (known != null) {
            requireUnexpired(known.expiresAt());
            return known;
        }
        var claims = verifySignedToken(token);
        remember(token, claims);
        return claims;
    }

    private void remember(String token, Claims claims) {
        if (verified.size() >= MAX_REMEMBERED) {
            Instant now = clock.instant();
            verified.values().removeIf(c -> !c.expiresAt().isAfter(now));
            if (verified.size() >= MAX_REMEMBERED) {
                verified.clear();
            }
        }
        verified.put(token, claims);
    }

    private void requireUnexpired(Instant expiresAt) {
        if (!expiresAt.isAfter(clock.instant())) {
            throw ApiException.unauthenticated("access token expired; get a new one (hearth auth token)");
        }
    }

    private Claims verifySignedToken(String token) {
        try {
            var jwt = SignedJWT.parse(token);
            if (!JWSAlgorithm.ES256.equals(jwt.getHeader().getAlgorithm())) {
                throw ApiException.unauthenticated("access token algorithm not accepted");
            }
            var key = keys.find(String.valueOf(jwt.getHeader().getKeyID()))
                    .orElseThrow(() -> ApiException.unauthenticated("access token signed by an unknown key"));
            if (!jwt.verify(new ECDSAVerifier(key.toECPublicKey()))) {
                throw ApiException.unauthenticated("access token signature does not verify");
            }
            return claims(jwt.getJWTClaimsSet());
        } catch (ParseException | JOSEException | IllegalStateException e) {
            throw ApiException.unauthenticated("malformed access token");
        }
    }

    private Claims claims(JWTClaimsSet c) throws ParseException {
        if (!issuer.equals(c.getIssuer()) || c.getAudience() == null || !c.getAudience().contains(issuer)) {
            throw ApiException.unauthenticated("access token was issued for another server");
        }
        if (c.getExpirationTime() == null) {
            throw ApiException.unauthenticated("malformed access token");
        }
        requireUnexpired(c.getExpirationTime().toInstant());
        String hk = c.getStringClaim("hk");
        String sid = c.getStringClaim("sid");
        String ak = c.getStringClaim("ak");
        int credentials = (hk == null ? 0 : 1) + (sid == null ? 0 : 1) + (ak == null ? 0 : 1);
        if (c.getSubject() == null || credentials != 1) {
            throw ApiException.unauthenticated("malformed access token");
        }
        // An API key's workspace and role are read again with the key itself (Authenticator.confirm).
        Credential credential = hk != null ? new KeyCredential(hk) : sid != null ? new SessionCredential(sid)
                : new ApiKeyCredential(ak, null, null);
        return new Claims(c.getSubject(), credential, c.getExpirationTime().toInstant());
    }
}
