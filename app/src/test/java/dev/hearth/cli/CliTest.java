package dev.hearth.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.Json;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The command line against the real server, with its own environment, terminal and config directory. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CliTest {
    record Run(int code, String out, String err) {
    }

    private TestServer server;
    @TempDir
    Path config;

    @BeforeAll
    void start() {
        server = TestServer.start();
    }

    @AfterAll
    void stop() throws Exception {
        server.close();
    }

    private Map<String, String> asAdmin() {
        return Map.of("HEARTH_URL", server.baseUrl(), "HEARTH_KEY_FILE", server.dataDir.resolve("admin-key.json").toString());
    }

    private Run cli(Map<String, String> env, InputStream in, String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code = Cli.run(args, new Cli.Context(env, in, new PrintStream(out, true), new PrintStream(err, true), config));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Run cli(Map<String, String> env, String... args) {
        return cli(env, new ByteArrayInputStream(new byte[0]), args);
    }

    @Test
    void aScriptWithAKeyFileManagesWorkspaces() throws Exception {
        var token = cli(asAdmin(), "auth", "token");
        assertEquals(0, token.code(), token.err());
        assertEquals(3, token.out().strip().split("\\.").length, "a JWT");

        var created = cli(asAdmin(), "workspaces", "create", "cli-demo");
        assertEquals(0, created.code(), created.err());
        assertTrue(created.out().startsWith("NAME"), created.out());
        assertTrue(created.out().contains("cli-demo"));

        var list = cli(asAdmin(), "workspaces", "list");
        assertTrue(list.out().lines().anyMatch(l -> l.startsWith("cli-demo ")), list.out());
        var json = Json.mapper().readTree(cli(asAdmin(), "--json", "workspaces", "list").out());
        assertTrue(json.path("workspaces").isArray());

        var me = cli(asAdmin(), "me");
        assertTrue(me.out().startsWith("admin (key)"), me.out());
        assertTrue(me.out().lines().anyMatch(l -> l.startsWith("cli-demo") && l.endsWith("admin")), me.out());
    }

    @Test
    void grantingAKeyPrincipalWritesItsKeyFile() throws Exception {
        cli(asAdmin(), "workspaces", "create", "cli-keys");
        Path keyFile = config.resolve("ci-key.json");
        var grant = cli(asAdmin(), "access", "grant", "-w", "cli-keys", "--key", "ci", "--role", "editor",
                "--key-file-out", keyFile.toString());
        assertEquals(0, grant.code(), grant.err());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));
        var env = new HashMap<>(asAdmin());
        env.put("HEARTH_KEY_FILE", keyFile.toString());
        var me = cli(env, "me");
        assertTrue(me.out().startsWith("ci (key)"), me.out());
        assertTrue(me.out().lines().anyMatch(l -> l.startsWith("cli-keys") && l.endsWith("editor")), me.out());
        var access = cli(asAdmin(), "access", "list", "-w", "cli-keys");
        assertTrue(access.out().lines().anyMatch(l -> l.contains(" ci ") && l.contains("editor")), access.out());
    }

    @Test
    void aPersonSignsInWithTheCodeFromTheirMail() throws Exception {
        var env = Map.of("HEARTH_URL", server.baseUrl());
        var terminal = new PipedOutputStream();
        var keyboard = new PipedInputStream(terminal);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var login = pool.submit(() -> cli(env, keyboard, "auth", "login", "--email", "cli@example.com"));
            String code = awaitCode("cli@example.com");
            terminal.write((code + "\n").getBytes(StandardCharsets.UTF_8));
            terminal.flush();
            var done = login.get();
            assertEquals(0, done.code(), done.err());
            assertTrue(done.err().contains("Enter it"), done.err());
        }
        assertTrue(Files.exists(config.resolve("session.json")));
        var token = cli(env, "auth", "token");
        assertEquals(0, token.code(), token.err());
        assertTrue(cli(env, "me").out().startsWith("cli@example.com"));
        assertEquals("Signed out.", cli(env, "auth", "logout").out().strip());
        var after = cli(env, "me");
        assertEquals(1, after.code());
        assertTrue(after.err().contains("not signed in"), after.err());
    }

    @Test
    void errorsAreOneLineWithTheCode() {
        var missing = cli(asAdmin(), "workspaces", "get", "no-such-workspace");
        assertEquals(1, missing.code());
        assertTrue(missing.err().startsWith("error: workspace no-such-workspace not found (not_found, request "), missing.err());
        var unreachable = cli(Map.of("HEARTH_URL", "http://127.0.0.1:1/v1", "HEARTH_TOKEN", "x"), "me");
        assertEquals(1, unreachable.code());
        assertTrue(unreachable.err().startsWith("error: cannot reach"), unreachable.err());
        assertEquals(2, cli(asAdmin(), "workspaces", "frobnicate").code());
    }

    private String awaitCode(String email) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            try {
                return server.lastCode(email);
            } catch (AssertionError | java.io.UncheckedIOException notYet) {
                Thread.sleep(25);
            }
        }
        throw new AssertionError("no code mailed to " + email);
    }
}
