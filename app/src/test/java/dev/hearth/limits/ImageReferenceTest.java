package dev.hearth.limits;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Users name registry images; local layouts and archives only under the operator's directories, and a
 * refused reference tells nothing about the host's files.
 */
@HearthServerTest(config = "allowingOneDirectory")
class ImageReferenceTest {
    private static final Path ALLOWED = tempDir();

    @Injected
    private HearthClient admin;
    private String ws;

    static UnaryOperator<Config> allowingOneDirectory() {
        return c -> c.withLocalImages(List.of(ALLOWED));
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("hearth-allowed-images");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void removeAllowed() {
        ALLOWED.toFile().delete();
    }

    @BeforeAll
    void workspace() {
        ws = admin.create("/workspaces", Map.of("name", "images-" + UUID.randomUUID().toString().substring(0, 8)))
                .path("workspace").path("id").asText();
    }

    private HearthClient.Response pull(String reference) {
        return admin.send("POST", "/workspaces/" + ws + "/images", Map.of("reference", reference),
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
    }

    private HearthClient.Response createComputer(String image) {
        return admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "c", "image", image),
                Map.of("Idempotency-Key", UUID.randomUUID().toString()));
    }

    @Test
    void hostFilesCannotBeNamed() {
        for (String reference : List.of("oci-archive:/etc/shadow", "docker-archive:/etc/shadow", "oci:/etc:latest",
                "oci:/root", "oci:" + ALLOWED + "/../../etc:x", "oci:relative/layout:x", "oci-archive:")) {
            var pulled = pull(reference);
            assertError(pulled, 400, "invalid_request");
            assertTrue(pulled.body().path("error").path("details").path("fields").has("reference"), reference);
            assertError(createComputer(reference), 400, "invalid_request");
        }
    }

    @Test
    void aRefusalIsTheSameWhetherThePathExistsOrNot() {
        var existing = pull("oci:/etc:latest").body().path("error").path("details");
        var missing = pull("oci:/no/such/dir/" + UUID.randomUUID() + ":latest").body().path("error").path("details");
        assertEquals(existing, missing);
    }

    @Test
    void layoutsUnderAnAllowedDirectoryArePulled() {
        var pulled = pull("oci:" + ALLOWED.resolve("missing") + ":v1");
        assertEquals(202, pulled.status(), pulled.body().toString());
        var done = admin.get("/operations/" + pulled.body().path("operations").get(0).asText() + "?wait=60").path("operation");
        assertEquals("failed", done.path("state").asText());
        assertEquals("image_pull_failed", done.path("error").path("code").asText());
    }

    @Test
    void registryNamesAreAccepted() {
        for (String reference : List.of("localhost:1/library/alpine:3", "docker://localhost:1/alpine:3")) {
            assertEquals(202, pull(reference).status(), reference);
        }
    }
}
