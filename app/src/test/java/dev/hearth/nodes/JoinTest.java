package dev.hearth.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.cli.Cli;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.nodes.JoinTokens;
import dev.hearth.server.nodes.Joining;
import dev.hearth.server.nodes.NodeSettings;
import dev.hearth.server.store.Store;
import dev.hearth.support.PostgresCluster;
import dev.hearth.support.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node joins a cluster with a token (hearth admin nodes join-token on the first node, hearth serve
 * --join on the new one): no file is copied by hand, and tokens, key files and secrets made on the
 * first node open on the new one, even when only the new one is asked.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JoinTest {
    private PostgresCluster cluster;
    private String store;
    private TestServer a;

    @BeforeAll
    void start() throws Exception {
        cluster = PostgresCluster.start();
        store = cluster.createDatabase("hearth_join");
        a = TestServer.start(node("a"));
    }

    @AfterAll
    void stop() throws Exception {
        try (var shared = cluster; var first = a) {
            // closes a, then the store
        }
    }

    private UnaryOperator<Config> node(String name) {
        return c -> c.withStore(store).withNodes(NodeSettings.DEFAULT.withName(name));
    }

    private UnaryOperator<Config> joining(String name, String token) {
        return c -> {
            try {
                var joined = node(name).apply(c);
                return joined.withPublicUrl(Optional.of(Joining.join(joined.store(), joined.dataDir(),
                        joined.encryptionKeyFile(), joined.publicUrl(), token)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    @Test
    void aNodeJoinedByTokenOpensWhatTheFirstNodeMade(@TempDir Path tmp) throws Exception {
        var admin = a.admin();
        String ws = TestServer.workspace(admin).path("id").asText();
        String variable = admin.create("/workspaces/" + ws + "/variables", Map.of("name", "api-token", "value", "s3cret"))
                .path("variable").path("id").asText();
        var made = cli("admin", "nodes", "join-token", "--data-dir", a.dataDir.toString(), "--store", store);
        assertEquals(0, made.code(), made.err());
        String token = made.out().strip();
        assertTrue(token.startsWith("hj1."), token);
        assertTrue(made.err().contains("hearth serve --join TOKEN"), made.err());
        String secret = token.substring(token.lastIndexOf('.') + 1);
        try (var db = Store.open(store, tmp)) {
            for (String sealed : db.jdbi().withHandle(h -> h.createQuery("SELECT sealed FROM join_tokens").mapTo(String.class).list())) {
                assertFalse(sealed.contains("keys") || sealed.contains(secret), "the store holds them sealed, not the secret");
            }
        }

        Path dir = tmp.resolve("b");
        try (var b = TestServer.startOn(dir, 0, joining("b", token))) {
            assertFalse(Files.exists(dir.resolve("admin-key.json")), "nothing of the first node's was copied by hand");
            assertEquals(Files.readString(a.dataDir.resolve("signing-keys.json")), Files.readString(dir.resolve("signing-keys.json")));
            // The first node's key file, and the token it made, on the new node.
            var onB = new HearthClient(b.localBaseUrl(), KeyFileTokens.read(a.dataDir.resolve("admin-key.json")));
            assertEquals("s3cret", onB.get("/variables/" + variable).path("variable").path("value").asText(),
                    "a secret sealed on a opens on b");
            // The same key file given a token by b itself, as when the cluster's public name leads to b alone.
            var keyFile = (ObjectNode) Json.mapper().readTree(a.dataDir.resolve("admin-key.json").toFile());
            keyFile.put("token_url", b.localBaseUrl() + "/auth/token");
            var tokenFromB = new HearthClient(b.localBaseUrl(), new KeyFileTokens(keyFile));
            assertEquals(ws, tokenFromB.get("/workspaces/" + ws).path("workspace").path("id").asText());
            assertTrue(cli("admin", "nodes", "--store", store).out().lines().anyMatch(l -> l.startsWith("b ")),
                    "b is a node of the cluster");
        }
        // A restart with the same token finds the keys it took and starts.
        try (var again = TestServer.startOn(dir, 0, joining("b", token))) {
            assertEquals(a.baseUrl(), again.baseUrl(), "the cluster's public URL, taken from the token");
            var health = new HearthClient(again.localBaseUrl(), dev.hearth.client.TokenSource.none());
            assertEquals(200, health.send("GET", "/health", null, Map.of()).status());
        }
    }

    /**
     * hearth admin rotate-encryption-key on the first node's host reaches the joined node through
     * the store: it opens what was re-sealed with the new key and seals with it itself, twice over.
     */
    @Test
    void aKeyRotatedOnOneNodesHostReachesTheOthers(@TempDir Path tmp) throws Exception {
        var admin = a.admin();
        String ws = TestServer.workspace(admin).path("id").asText();
        String first = variable(admin, ws, "first", "one");
        String token = cli("admin", "nodes", "join-token", "--data-dir", a.dataDir.toString(), "--store", store).out().strip();
        try (var b = TestServer.startOn(tmp.resolve("b"), 0, joining("b", token));
             var db = Store.open(store, tmp)) {
            var onB = new HearthClient(b.localBaseUrl(), KeyFileTokens.read(a.dataDir.resolve("admin-key.json")));
            for (int round = 1; round <= 2; round++) {
                var rotated = cli("admin", "rotate-encryption-key", "--data-dir", a.dataDir.toString(), "--store", store);
                assertEquals(0, rotated.code(), rotated.err());
                String active = rotated.out().split(" ")[2].replace(";", "");
                assertEquals(active, keyOf(db, first), "re-sealed with the new key");
                assertEquals("one", onB.get("/variables/" + first).path("variable").path("value").asText(),
                        "b opens what a's rotation sealed");
                String made = variable(onB, ws, "made-on-b-" + round, "two");
                assertEquals(active, keyOf(db, made), "b seals with the new key");
                assertEquals("two", admin.get("/variables/" + made).path("variable").path("value").asText());
            }
        }
    }

    private static String variable(HearthClient client, String ws, String name, String value) {
        return client.create("/workspaces/" + ws + "/variables", Map.of("name", name, "value", value))
                .path("variable").path("id").asText();
    }

    private static String keyOf(Store db, String variable) {
        return db.jdbi().withHandle(h -> h.createQuery("SELECT key_id FROM variables WHERE id = :id")
                .bind("id", variable).mapTo(String.class).one());
    }

    @Test
    void aBadExpiredOrForgedTokenAndADirectoryWithKeysOfItsOwnAreRefused(@TempDir Path tmp) throws Exception {
        var made = cli("admin", "nodes", "join-token", "--data-dir", a.dataDir.toString(), "--store", store, "--minutes", "5");
        String token = made.out().strip();
        Config fresh = node("c").apply(Config.defaults(tmp.resolve("c")));
        ThrowingJoin join = (c, t) -> Joining.join(c.store(), c.dataDir(), c.encryptionKeyFile(), c.publicUrl(), t);
        for (var bad : Map.of("hj1.nonsense", "not a join token", token.substring(0, token.lastIndexOf('.') + 1) + "AAAA",
                "does not open", "hj1.0123456789abcdef.AAAA", "no join token").entrySet()) {
            var e = assertThrows(IllegalArgumentException.class, () -> join.apply(fresh, bad.getKey()));
            assertTrue(e.getMessage().contains(bad.getValue()), e.getMessage());
        }
        try (var db = Store.open(store, tmp)) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> JoinTokens.redeem(db.jdbi(), token, Instant.now().plus(Duration.ofMinutes(6))));
            assertTrue(e.getMessage().contains("expired"), e.getMessage());
        }
        Path own = tmp.resolve("own");
        Files.createDirectories(own);
        Files.writeString(own.resolve("signing-keys.json"), "{}");
        var e = assertThrows(IllegalArgumentException.class, () -> join.apply(node("d").apply(Config.defaults(own)), token));
        assertTrue(e.getMessage().contains("keys of its own"), e.getMessage());
        var sqlite = assertThrows(IllegalArgumentException.class, () -> join.apply(Config.defaults(tmp.resolve("e")), token));
        assertTrue(sqlite.getMessage().contains("--store postgresql://"), sqlite.getMessage());
        var noStore = cli("admin", "nodes", "join-token", "--data-dir", a.dataDir.toString());
        assertEquals(1, noStore.code());
        assertTrue(noStore.err().contains("shared store"), noStore.err());
    }

    private interface ThrowingJoin {
        String apply(Config config, String token) throws IOException;
    }

    private record Answer(int code, String out, String err) {
    }

    private Answer cli(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code = Cli.run(args, new Cli.Context(Map.of(), System.in, new PrintStream(out, true), new PrintStream(err, true),
                a.dataDir.resolve("cli")));
        return new Answer(code, out.toString(), err.toString());
    }
}
