package dev.hearth.limits;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.http.IdempotencySettings;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A key is held while its first request runs, however long (here longer than the lease it renews), a
 * retry meanwhile is told so, and an exec with a key runs to its end even when its client hangs up:
 * the retry gets the real answer, never one that did not happen.
 */
@HearthServerTest(config = "shortWaits", computers = true)
class IdempotentExecTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String computer;

    static UnaryOperator<Config> shortWaits() {
        return c -> c.withIdempotency(new IdempotencySettings(Duration.ofSeconds(1), Duration.ofSeconds(2)));
    }

    @BeforeAll
    void computer() {
        String ws = TestServer.workspace(admin).path("id").asText();
        computer = TestComputers.create(admin, ws, "keyed", "hearth/busybox", Map.of()).path("id").asText();
    }

    private HearthClient.Response exec(String key, String script) {
        return admin.send("POST", "/computers/" + computer + "/exec", Map.of("command", List.of("sh", "-c", script)),
                Map.of("Idempotency-Key", key));
    }

    private int runs(String file) {
        return (int) TestComputers.run(admin, computer, "cat " + file + " 2>/dev/null || true").lines().count();
    }

    @Test
    void aRetryWhileTheFirstRunsIsToldSoAndNeverRunsItTwice() throws Exception {
        String key = UUID.randomUUID().toString();
        String script = "echo run >> /data/slow; sleep 5; echo done";
        var first = CompletableFuture.supplyAsync(() -> exec(key, script));
        Thread.sleep(3500);
        // Past the 2 s lease: the first request renewed it, so the key is still its own.
        var retry = exec(key, script);
        assertError(retry, 409, "idempotency_key_in_use");
        assertTrue(retry.header("Retry-After").isPresent(), "a retry is told when to come back");
        var answer = first.get();
        assertEquals(200, answer.status(), answer.body().toString());
        var replay = exec(key, script);
        assertEquals(answer.body(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed").orElseThrow());
        assertEquals(1, runs("/data/slow"));
    }

    @Test
    void anExecWithAKeyRunsOnWhenItsClientHangsUpAndItsRetryGetsTheRealAnswer() throws Exception {
        String key = UUID.randomUUID().toString();
        String script = "echo run >> /data/hung; sleep 2; echo finished";
        hangUpAfterSending(key, script);
        JsonNode answer = null;
        for (int i = 0; i < 40 && answer == null; i++) {
            var retry = exec(key, script);
            if (retry.status() == 200) {
                answer = retry.body();
            } else {
                assertError(retry, 409, "idempotency_key_in_use");
            }
        }
        assertTrue(answer != null, "the retry got an answer");
        assertEquals(0, answer.path("exit_code").asInt(), answer.toString());
        assertFalse(answer.path("timed_out").asBoolean(), answer.toString());
        assertEquals("finished\n", answer.path("stdout").asText());
        assertEquals(1, runs("/data/hung"));
    }

    private void hangUpAfterSending(String key, String script) throws Exception {
        var uri = URI.create(server.baseUrl());
        String token = ((KeyFileTokens) KeyFileTokens.read(server.dataDir.resolve("admin-key.json"))).token(admin).orElseThrow();
        String body = Json.mapper().writeValueAsString(Map.of("command", List.of("sh", "-c", script)));
        try (var socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.getOutputStream().write(("POST /v1/computers/" + computer + "/exec HTTP/1.1\r\nHost: x\r\n"
                    + "Authorization: Bearer " + token + "\r\nIdempotency-Key: " + key + "\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
            Thread.sleep(500);
        }
    }
}
