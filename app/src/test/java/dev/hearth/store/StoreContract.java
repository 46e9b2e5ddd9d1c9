package dev.hearth.store;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The store's promises, run once per back end (SQLite and PostgreSQL) through the real server:
 * what is acknowledged survives a restart, unique names and the last-admin rule hold under racing
 * writers, and rows read back exactly as written.
 */
@HearthServerTest(config = "store")
abstract class StoreContract {
    @Injected
    protected TestServer server;
    @Injected
    protected HearthClient admin;

    /** How this back end is configured: the server's config method, called once before it starts. */
    protected abstract UnaryOperator<Config> store() throws Exception;

    /** How many workspaces with this name the back end holds, read straight from it. */
    protected abstract long rowsNamed(String name) throws Exception;

    /** Everything the back end has on disk or can dump, as bytes. */
    protected abstract byte[] everythingStored() throws Exception;

    @AfterAll
    void stop() throws Exception {
        // Here, not after the class as the extension would: the back end must outlive the server.
        server.close();
        closeBackend();
    }

    /** Stops whatever {@link #store()} started, after the server has let go of it. */
    protected void closeBackend() throws Exception {
    }

    @Test
    void acknowledgedWritesAreInTheStoreAndSurviveARestart() throws Exception {
        var ws = TestServer.workspace(admin);
        String name = ws.path("name").asText();
        assertEquals(1, rowsNamed(name));
        var granted = admin.create("/workspaces/" + name + "/access", Map.of("email", "kept@example.com", "role", "viewer"));
        server.restart();
        var after = server.admin().get("/workspaces/" + name);
        assertEquals(ws, after.path("workspace"));
        var access = server.admin().get("/workspaces/" + name + "/access/"
                + granted.path("access").path("principal").path("id").asText());
        assertEquals("viewer", access.path("access").path("role").asText());
    }

    @Test
    void racingCreatesOfOneNameMakeOneWorkspace() throws Exception {
        String name = TestServer.uniqueName("race");
        var statuses = race(12, () -> admin.send("POST", "/workspaces", Map.of("name", name),
                Map.of("Idempotency-Key", UUID.randomUUID().toString())).status());
        assertEquals(1, statuses.stream().filter(s -> s == 201).count(), statuses.toString());
        assertTrue(statuses.stream().allMatch(s -> s == 201 || s == 409), statuses.toString());
        assertEquals(1, rowsNamed(name));
    }

    @Test
    void racingDemotionsLeaveAnAdmin() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        var other = admin.create("/workspaces/" + ws + "/access", Map.of("name", "co-admin", "role", "admin"));
        var coAdmin = server.keyPrincipal(other.path("key_file"));
        String me = admin.get("/me").path("principal").path("id").asText();
        String them = other.path("access").path("principal").path("id").asText();
        var statuses = race(2, List.of(
                () -> admin.send("PATCH", "/workspaces/" + ws + "/access/" + them, Map.of("role", "viewer"), Map.of()).status(),
                () -> coAdmin.send("PATCH", "/workspaces/" + ws + "/access/" + me, Map.of("role", "viewer"), Map.of()).status()));
        // The loser is refused either by the last-admin rule (409) or, if the winner committed first,
        // because it is no longer an admin (403). Either way exactly one admin remains.
        var sorted = statuses.stream().sorted().toList();
        assertEquals(200, sorted.get(0), statuses.toString());
        assertTrue(sorted.get(1) == 403 || sorted.get(1) == 409, statuses.toString());
        long admins = 0;
        for (var a : admin.get("/workspaces/" + ws + "/access").path("access")) {
            admins += a.path("role").asText().equals("admin") ? 1 : 0;
        }
        assertEquals(1, admins);
    }

    @Test
    void secretValuesNeverReachTheStoreInPlaintext() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String secret = "plaintext-canary-" + UUID.randomUUID();
        admin.create("/workspaces/" + ws + "/variables", Map.of("name", "canary", "value", secret));
        admin.patch("/variables/canary?workspace=" + ws, Map.of("value", secret + "-changed"));
        assertEquals(secret + "-changed", admin.get("/variables/canary?workspace=" + ws).path("variable").path("value").asText());
        String stored = new String(everythingStored(), StandardCharsets.ISO_8859_1);
        assertTrue(stored.contains("canary"), "the dump holds the variable's row");
        assertTrue(!stored.contains("plaintext-canary-"), "no plaintext value in the store");
    }

    @Test
    void deletedWorkspacesFreeTheirName() throws Exception {
        var ws = TestServer.workspace(admin);
        String name = ws.path("name").asText();
        var deleted = admin.delete("/workspaces/" + name).path("workspace");
        assertTrue(!deleted.path("deleted_at").isNull());
        assertError(admin.send("GET", "/workspaces/" + ws.path("id").asText(), null, Map.of()), 404, "not_found");
        var again = admin.create("/workspaces", Map.of("name", name)).path("workspace");
        assertTrue(!again.path("id").asText().equals(ws.path("id").asText()));
        assertEquals(2, rowsNamed(name));
    }

    private static List<Integer> race(int n, Callable<Integer> call) throws Exception {
        var calls = new ArrayList<Callable<Integer>>();
        for (int i = 0; i < n; i++) {
            calls.add(call);
        }
        return race(n, calls);
    }

    private static List<Integer> race(int n, List<Callable<Integer>> calls) throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var results = new ArrayList<Integer>();
            for (Future<Integer> f : pool.invokeAll(calls)) {
                results.add(f.get());
            }
            return results;
        }
    }
}
