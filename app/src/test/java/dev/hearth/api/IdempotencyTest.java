package dev.hearth.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.hearth.client.HearthClient;
import dev.hearth.server.store.Store;
import dev.hearth.support.Envelope;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

@HearthServerTest
class IdempotencyTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;

    private HearthClient.Response create(HearthClient client, String key, String name) {
        return client.send("POST", "/workspaces", Map.of("name", name), Map.of("Idempotency-Key", key));
    }

    private long countNamed(HearthClient client, String name) {
        var all = client.get("/workspaces?limit=100").path("workspaces");
        long n = 0;
        for (var w : all) {
            n += w.path("name").asText().equals(name) ? 1 : 0;
        }
        return n;
    }

    @Test
    void sameKeyAndBodyReplaysTheFirstAnswer() {
        String key = UUID.randomUUID().toString();
        String name = TestServer.uniqueName("replay");
        var first = create(admin, key, name);
        var again = create(admin, key, name);
        assertEquals(201, first.status());
        assertEquals(201, again.status());
        assertEquals(first.body(), again.body());
        assertEquals("true", again.header("Idempotent-Replayed").orElseThrow());
        assertEquals(1, countNamed(admin, name));
    }

    @Test
    void sameKeyWithAnotherBodyIsRefused() {
        String key = UUID.randomUUID().toString();
        assertEquals(201, create(admin, key, TestServer.uniqueName("first")).status());
        Envelope.assertError(create(admin, key, TestServer.uniqueName("second")), 422, "idempotency_key_reused");
    }

    @Test
    void keysAreScopedToThePrincipal() {
        String key = UUID.randomUUID().toString();
        var other = server.emailUser("scoped@example.com");
        var mine = create(admin, key, TestServer.uniqueName("mine"));
        var theirs = create(other, key, TestServer.uniqueName("theirs"));
        assertEquals(201, theirs.status());
        assertNotEquals(mine.body().path("workspace").path("id"), theirs.body().path("workspace").path("id"));
    }

    @Test
    void concurrentRequestsWithOneKeyCreateOneResource() throws Exception {
        String key = UUID.randomUUID().toString();
        String name = TestServer.uniqueName("race");
        var ids = new HashSet<String>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = new ArrayList<Future<HearthClient.Response>>();
            for (int i = 0; i < 12; i++) {
                futures.add(pool.submit((Callable<HearthClient.Response>) () -> create(admin, key, name)));
            }
            for (var f : futures) {
                var r = f.get();
                assertEquals(201, r.status(), () -> r.body().toString());
                ids.add(r.body().path("workspace").path("id").asText());
            }
        }
        assertEquals(1, ids.size());
        assertEquals(1, countNamed(admin, name));
    }

    @Test
    void aRefusalIsReplayedLikeASuccess() {
        String key = UUID.randomUUID().toString();
        var first = create(admin, key, "Bad Name");
        Envelope.assertError(first, 400, "invalid_request");
        var again = create(admin, key, "Bad Name");
        Envelope.assertError(again, 400, "invalid_request");
        assertEquals("true", again.header("Idempotent-Replayed").orElseThrow());
        assertEquals(first.body().path("error").path("message"), again.body().path("error").path("message"));
        assertEquals(again.header("X-Request-Id").orElseThrow(), again.body().path("error").path("request_id").asText(),
                "a replayed error names the request it answers");
    }

    @Test
    void aConflictFreesTheKeyForARetryThatCanSucceed() {
        String name = TestServer.uniqueName("taken");
        var taken = create(admin, UUID.randomUUID().toString(), name).body().path("workspace").path("id").asText();
        String key = UUID.randomUUID().toString();
        Envelope.assertError(create(admin, key, name), 409, "conflict");
        admin.delete("/workspaces/" + taken);
        assertEquals(201, create(admin, key, name).status());
    }

    @Test
    void theQueryIsPartOfTheScope() {
        var a = TestServer.workspace(admin).path("id").asText();
        var b = TestServer.workspace(admin).path("id").asText();
        for (String ws : new String[] {a, b}) {
            admin.create("/workspaces/" + ws + "/variables", Map.of("name", "token", "value", "old"));
        }
        String key = UUID.randomUUID().toString();
        for (String ws : new String[] {a, b}) {
            var r = admin.send("PATCH", "/variables/token?workspace=" + ws, Map.of("value", "new"),
                    Map.of("Idempotency-Key", key));
            assertEquals(200, r.status(), r.body().toString());
            assertEquals(ws, r.body().path("variable").path("workspace").asText(), "each workspace's own answer");
            assertEquals(true, r.header("Idempotent-Replayed").isEmpty());
        }
    }

    /** Leaves the key's record as a server killed after the create's commit and before its answer leaves it. */
    private void dieBeforeAnswering(String key) {
        try (var store = Store.open(null, server.dataDir)) {
            int rows = store.jdbi().withHandle(h -> h.createUpdate("""
                    UPDATE idempotency_keys SET status = NULL, body = NULL, lease_until = 0 WHERE idem_key = :key""")
                    .bind("key", key).execute());
            assertEquals(1, rows);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aCreateWhoseServerDiedBeforeAnsweringIsAnsweredWithWhatItMade() {
        String key = UUID.randomUUID().toString();
        String name = TestServer.uniqueName("cut");
        var first = create(admin, key, name);
        assertEquals(201, first.status());
        dieBeforeAnswering(key);
        var retried = create(admin, key, name);
        assertEquals(201, retried.status(), retried.body().toString());
        assertEquals(first.body().path("workspace").path("id"), retried.body().path("workspace").path("id"));
        assertEquals(1, countNamed(admin, name), "nothing made twice, no 409 for its own name");
        var replayed = create(admin, key, name);
        assertEquals("true", replayed.header("Idempotent-Replayed").orElseThrow(), "kept as the key's answer");
        assertEquals(retried.body().path("workspace"), replayed.body().path("workspace"));
        Envelope.assertError(create(admin, key, TestServer.uniqueName("other")), 422, "idempotency_key_reused");
    }

    @Test
    void aRetryRunsAfreshWhenWhatTheCutCreateMadeWasDeletedSince() {
        String key = UUID.randomUUID().toString();
        String name = TestServer.uniqueName("gone");
        String id = create(admin, key, name).body().path("workspace").path("id").asText();
        dieBeforeAnswering(key);
        admin.delete("/workspaces/" + id);
        var retried = create(admin, key, name);
        assertEquals(201, retried.status(), retried.body().toString());
        assertNotEquals(id, retried.body().path("workspace").path("id").asText());
        assertEquals(1, countNamed(admin, name));
    }

    @Test
    void recordsExpireAfter24Hours() {
        String key = UUID.randomUUID().toString();
        assertEquals(201, create(admin, key, TestServer.uniqueName("day-one")).status());
        server.clock.advance(Duration.ofHours(25));
        try {
            var token = server.emailLogin("later@example.com").path("access_token").asText();
            var later = server.withToken(token);
            String key2 = UUID.randomUUID().toString();
            assertEquals(201, create(later, key2, TestServer.uniqueName("a")).status());
            server.clock.advance(Duration.ofHours(25));
            token = server.emailLogin("later@example.com").path("access_token").asText();
            assertEquals(201, create(server.withToken(token), key2, TestServer.uniqueName("b")).status());
        } finally {
            server.clock.reset();
        }
    }

    @Test
    void optionalKeysOnUpdatesReplayToo() {
        var ws = TestServer.workspace(admin);
        String key = UUID.randomUUID().toString();
        String path = "/workspaces/" + ws.path("id").asText();
        var body = Map.of("name", TestServer.uniqueName("renamed"));
        var first = admin.send("PATCH", path, body, Map.of("Idempotency-Key", key));
        var again = admin.send("PATCH", path, body, Map.of("Idempotency-Key", key));
        assertEquals(200, again.status());
        assertEquals(first.body(), again.body());
        assertEquals("true", again.header("Idempotent-Replayed").orElseThrow());
    }
}
