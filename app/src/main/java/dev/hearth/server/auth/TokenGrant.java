package dev.hearth.server.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.auth.TokenResponse;
import dev.hearth.server.access.PrincipalKey;
import dev.hearth.server.access.PrincipalStore;
import dev.hearth.server.tenancy.Caller.KeyCredential;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Locale;
import org.jdbi.v3.core.Jdbi;

/**
 * The RFC 7523 JWT-bearer grant: a key principal signs a short assertion with its private key and
 * gets an access token. The algorithm is fixed by the registered key's type, so {@code none} and
 * HMAC-with-the-public-key forgeries cannot verify.
 */
public final class TokenGrant {
    public static final String JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
    static final Duration MAX_LIFETIME = Duration.ofHours(1);
    static final Duration SKEW = Duration.ofSeconds(60);

    private final Jdbi jdbi;
    private final PrincipalStore principals;
    private final AuthStore store;
    private final AccessTokens tokens;
    private final Clock clock;
    private final String audience;

    public TokenGrant(Jdbi jdbi, PrincipalStore principals, AuthStore store, AccessTokens tokens, Clock clock,
                      String audience) {
        this.jdbi = jdbi;
        this.principals = principals;
        this.store = store;
        this.tokens = tokens;
        this.clock = clock;
        this.audience = audience;
    }

    public TokenResponse exchange(String grantType, String assertion) {
        if (grantType == null || assertion == null) {
            throw ApiException.invalidField(grantType == null ? "grant_type" : "assertion", "required");
        }
        if (!JWT_BEARER.equals(grantType)) {
            throw new ApiException(ErrorCode.UNSUPPORTED_GRANT_TYPE, "grant_type must be " + JWT_BEARER);
        }
        SignedJWT jwt = parse(assertion);
        String keyId = jwt.getHeader().getKeyID();
        if (keyId == null) {
            throw invalid("the assertion header has no kid; use key_id from the key file");
        }
        Instant now = clock.instant();
        return jdbi.inTransaction(h -> {
            var key = principals.findKey(h, keyId).orElseThrow(() -> invalid("unknown key " + keyId));
            if (key.state(now) != PrincipalKey.State.ACTIVE) {
                throw invalid("key " + keyId + " is " + key.state(now).name().toLowerCase(Locale.ROOT));
            }
            verifySignature(jwt, key);
            var claims = claims(jwt);
            checkClaims(claims, key, now);
            if (!store.useJti(h, keyId, claims.getJWTID(), claims.getExpirationTime().toInstant())) {
                throw invalid("this assertion's jti was used already; sign a new assertion for each request");
            }
            principals.touchKey(h, keyId, now);
            String token = tokens.issue(key.principal(), new KeyCredential(keyId));
            return new TokenResponse(token, "Bearer", tokens.lifetime().toSeconds());
        });
    }

    private static SignedJWT parse(String assertion) {
        try {
            return SignedJWT.parse(assertion);
        } catch (ParseException e) {
            throw invalid("the assertion is not a signed JWT");
        }
    }

    private static void verifySignature(SignedJWT jwt, PrincipalKey key) {
        try {
            JWK jwk = JWK.parse(key.publicKey());
            JWSAlgorithm alg = jwt.getHeader().getAlgorithm();
            JWSVerifier verifier = switch (jwk) {
                case ECKey ec when JWSAlgorithm.ES256.equals(alg) -> new ECDSAVerifier(ec);
                case RSAKey rsa when JWSAlgorithm.RS256.equals(alg) -> new RSASSAVerifier(rsa);
                default -> throw invalid("algorithm " + alg + " does not match this key; use "
                        + (jwk instanceof ECKey ? "ES256" : "RS256"));
            };
            if (!jwt.verify(verifier)) {
                throw invalid("the assertion's signature does not verify with key " + key.id());
            }
        } catch (ParseException | JOSEException e) {
            throw invalid("the assertion's signature does not verify with key " + key.id());
        }
    }

    private static JWTClaimsSet claims(SignedJWT jwt) {
        try {
            return jwt.getJWTClaimsSet();
        } catch (ParseException e) {
            throw invalid("the assertion's claims are not valid JSON");
        }
    }

    private void checkClaims(JWTClaimsSet c, PrincipalKey key, Instant now) {
        if (!key.principal().equals(c.getSubject()) || !key.principal().equals(c.getIssuer())) {
            throw invalid("iss and sub must both be the key file's subject");
        }
        if (c.getAudience() == null || !c.getAudience().contains(audience)) {
            throw invalid("aud must be " + audience);
        }
        Date exp = c.getExpirationTime();
        if (exp == null) {
            throw invalid("the assertion needs exp");
        }
        if (!exp.toInstant().plus(SKEW).isAfter(now)) {
            throw invalid("the assertion has expired");
        }
        if (exp.toInstant().isAfter(now.plus(MAX_LIFETIME).plus(SKEW))) {
            throw invalid("exp may be at most one hour ahead");
        }
        if (c.getNotBeforeTime() != null && c.getNotBeforeTime().toInstant().isAfter(now.plus(SKEW))) {
            throw invalid("the assertion is not valid yet (nbf)");
        }
        if (c.getJWTID() == null || c.getJWTID().isEmpty() || c.getJWTID().length() > 255) {
            throw invalid("the assertion needs a unique jti of 1 to 255 characters");
        }
    }

    private static ApiException invalid(String message) {
        return new ApiException(ErrorCode.INVALID_GRANT, message);
    }
}
