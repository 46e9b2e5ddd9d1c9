package dev.hearth.server.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.hearth.fs.Disk;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Optional;

/**
 * The server's token-signing keys (ES256), kept in a 0600 JSON file in the data directory. The
 * newest key signs; older keys still verify until every token they signed has expired, so a
 * rotation logs nobody out. Replicas that share a store share this file.
 */
public final class SigningKeys {
    private final Path file;
    private final Clock clock;
    private final Duration rotateAfter;
    private final Duration verifyAfterRetired;
    private volatile List<ECKey> keys;

    public SigningKeys(Path file, Clock clock, Duration rotateAfter, Duration tokenLifetime) {
        this.file = file;
        this.clock = clock;
        this.rotateAfter = rotateAfter;
        this.verifyAfterRetired = tokenLifetime.plusMinutes(5);
        this.keys = Files.exists(file) ? read() : List.of();
        rotateIfDue();
    }

    public ECKey active() {
        return keys.getFirst();
    }

    public Optional<ECKey> find(String keyId) {
        return keys.stream().filter(k -> k.getKeyID().equals(keyId)).findFirst();
    }

    /** The public half of every key that may still verify a token, for /.well-known/jwks.json. */
    public JWKSet publicKeys() {
        return new JWKSet(keys.stream().map(k -> (JWK) k.toPublicJWK()).toList());
    }

    /** Starts signing with a new key when the active one is older than the rotation period. */
    public synchronized void rotateIfDue() {
        keys = Files.exists(file) ? read() : List.of();
        Instant now = clock.instant();
        if (keys.isEmpty() || issued(keys.getFirst()).plus(rotateAfter).isBefore(now)) {
            rotate();
        }
    }

    /** Signs with a new key from now on; keys retired long enough that no live token needs them are dropped. */
    public synchronized void rotate() {
        Instant now = clock.instant();
        var next = new ArrayList<ECKey>();
        next.add(generate(now));
        Instant retiredAt = now;
        for (ECKey key : keys) {
            if (retiredAt.plus(verifyAfterRetired).isAfter(now)) {
                next.add(key);
            }
            retiredAt = issued(key);
        }
        write(next);
        keys = List.copyOf(next);
    }

    private static ECKey generate(Instant now) {
        try {
            return new ECKeyGenerator(Curve.P_256).keyID(Ids.next()).keyUse(KeyUse.SIGNATURE)
                    .algorithm(JWSAlgorithm.ES256).issueTime(Date.from(now)).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot generate a signing key", e);
        }
    }

    private static Instant issued(ECKey key) {
        return key.getIssueTime() == null ? Instant.EPOCH : key.getIssueTime().toInstant();
    }

    private List<ECKey> read() {
        try {
            return JWKSet.parse(Files.readString(file)).getKeys().stream().map(k -> (ECKey) k)
                    .sorted(Comparator.comparing(SigningKeys::issued).reversed()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read signing keys " + file, e);
        } catch (ParseException e) {
            throw new IllegalStateException("signing key file " + file + " is damaged: " + e.getMessage(), e);
        }
    }

    private void write(List<ECKey> next) {
        try {
            Disk.writePrivate(file, new JWKSet(next.stream().map(k -> (JWK) k).toList()).toString(false));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write signing keys " + file, e);
        }
    }
}
