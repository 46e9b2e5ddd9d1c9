package dev.hearth.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.JsonTrees;
import dev.hearth.fs.Disk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Tokens of an email sign-in saved by {@code hearth auth login}: the access token is reused while
 * fresh and the session refreshed (rotating the refresh token) when not. A file lock keeps two
 * commands from refreshing with the same token, which the server would treat as theft.
 */
public final class SessionTokens implements TokenSource {
    private final Path file;

    public SessionTokens(Path file) {
        this.file = file;
    }

    public static boolean exists(Path file) {
        return Files.exists(file);
    }

    @Override
    public Optional<String> token(HearthClient client) {
        try (var lock = FileChannel.open(file.resolveSibling(file.getFileName() + ".lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE).lock()) {
            var session = (ObjectNode) JsonTrees.read(Files.readString(file));
            Instant expires = Instant.parse(session.path("access_expires_at").asText(Instant.EPOCH.toString()));
            if (Instant.now().plusSeconds(60).isBefore(expires)) {
                return Optional.of(session.path("access_token").asText());
            }
            var tokens = refresh(client, session.path("url").asText(client.baseUrl()), session.path("refresh_token").asText());
            save(file, session.path("url").asText(client.baseUrl()), tokens);
            return Optional.of(tokens.path("access_token").asText());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use the saved session " + file + ": " + e.getMessage(), e);
        }
    }

    private static JsonNode refresh(HearthClient client, String url, String refreshToken) throws IOException {
        var response = client.postUnauthenticated(URI.create(url + "/auth/refresh"), "application/json",
                JsonTrees.bytes(Map.of("refresh_token", refreshToken)));
        if (response.status() != 200) {
            throw ApiException.fromResponse(response.status(), response.body());
        }
        return response.body();
    }

    /** Saves the answer of /auth/email/verify or /auth/refresh (mode 0600). */
    public static void save(Path file, String url, JsonNode tokens) throws IOException {
        var session = JsonTrees.object();
        session.put("url", url);
        session.put("email", tokens.path("principal").path("email").asText());
        session.put("principal", tokens.path("principal").path("id").asText());
        session.put("access_token", tokens.path("access_token").asText());
        session.put("access_expires_at", Instant.now().plusSeconds(tokens.path("expires_in").asLong()).toString());
        session.put("refresh_token", tokens.path("refresh_token").asText());
        Files.createDirectories(file.getParent());
        Disk.writePrivate(file, JsonTrees.pretty(session));
    }
}
