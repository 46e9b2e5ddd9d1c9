package dev.hearth.server.agent;

import dev.hearth.fs.Disk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Each computer's agent secret, derived from one key of the server (HMAC-SHA256 of the computer's
 * id), so the store holds none of them and a fork, having another id, gets another secret. The key
 * lives in a 0600 file in the data directory, made on first start.
 */
public final class AgentSecrets {
    private final SecretKeySpec key;

    public AgentSecrets(Path keyFile) {
        this.key = new SecretKeySpec(load(keyFile), "HmacSHA256");
    }

    public String of(String computerId) {
        try {
            var mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            byte[] digest = mac.doFinal(("hearth-agent:" + computerId).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private static byte[] load(Path file) {
        try {
            if (!Files.exists(file)) {
                byte[] fresh = new byte[32];
                new SecureRandom().nextBytes(fresh);
                Disk.writePrivate(file, Base64.getEncoder().encodeToString(fresh));
            }
            return Base64.getDecoder().decode(Files.readString(file).strip());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the agent key " + file, e);
        }
    }
}
