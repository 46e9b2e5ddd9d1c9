package dev.hearth.cli;

import static dev.hearth.support.HearthServerExtension.assumeComputers;
import static dev.hearth.support.HearthServerExtension.assumeDatabases;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.server.Config;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestKinds;
import dev.hearth.support.TestServer;
import dev.hearth.support.TypedInput;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line against the real server, with its own environment, terminal and config directory. */
@HearthServerTest(config = "withOperations")
class CliTest {
    record Run(int code, String out, String err) {
    }

    @Injected
    private TestServer server;
    @TempDir
    Path config;

    static UnaryOperator<Config> withOperations() {
        return c -> c.withOperations(Duration.ofSeconds(2), TestKinds.all());
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
        assertTrue(me.out().startsWith("admin (key)") && me.out().lines().findFirst().orElseThrow().endsWith("  operator"),
                me.out());
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
        assertTrue(me.out().startsWith("ci (key)") && !me.out().contains("operator"), me.out());
        assertTrue(me.out().lines().anyMatch(l -> l.startsWith("cli-keys") && l.endsWith("editor")), me.out());
        var access = cli(asAdmin(), "access", "list", "-w", "cli-keys");
        assertTrue(access.out().lines().anyMatch(l -> l.contains(" ci ") && l.contains("editor")), access.out());
    }

    @Test
    void aKeyFilesTokenIsKeptPrivatelyBetweenRunsAndRenewedWhenRefused() throws Exception {
        assertEquals(0, cli(asAdmin(), "me").code());
        Path cache = config.resolve("tokens.json");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cache)));
        String kept = Files.readString(cache);
        assertFalse(kept.contains(server.baseUrl()) || kept.contains("admin"), "entries name no server or key: " + kept);
        assertEquals(0, cli(asAdmin(), "me").code());
        assertEquals(kept, Files.readString(cache), "the second run used the kept token");

        var entries = (ObjectNode) Json.mapper().readTree(kept);
        entries.properties().forEach(e -> ((ObjectNode) e.getValue()).put("access_token", "refused.by.server"));
        Files.writeString(cache, entries.toString());
        var renewed = cli(asAdmin(), "me");
        assertEquals(0, renewed.code(), renewed.err());
        assertTrue(renewed.out().startsWith("admin (key)"), renewed.out());
        assertFalse(Files.readString(cache).contains("refused.by.server"), "a refused token is replaced");

        Files.writeString(cache, "not json");
        assertEquals(0, cli(asAdmin(), "me").code(), "a damaged cache is ignored");
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
    void variablesFromArgumentsFilesAndStdin() throws Exception {
        cli(asAdmin(), "workspaces", "create", "cli-vars");
        assertEquals(0, cli(asAdmin(), "variables", "set", "token", "abc123", "-w", "cli-vars").code());
        Path file = config.resolve("value.txt");
        Files.writeString(file, "from a file");
        assertEquals(0, cli(asAdmin(), "variables", "set", "filed", "--from-file", file.toString(), "-w", "cli-vars").code());
        var piped = cli(asAdmin(), new ByteArrayInputStream("from stdin".getBytes(StandardCharsets.UTF_8)),
                "variables", "set", "piped", "--stdin", "-w", "cli-vars");
        assertEquals(0, piped.code(), piped.err());
        assertEquals(0, cli(asAdmin(), "variables", "set", "token", "changed", "-w", "cli-vars").code(), "set again updates");

        assertEquals("changed", cli(asAdmin(), "variables", "get", "token", "-w", "cli-vars").out().strip());
        assertEquals("from a file", cli(asAdmin(), "variables", "get", "filed", "-w", "cli-vars").out().strip());
        assertEquals("from stdin", cli(asAdmin(), "variables", "get", "piped", "-w", "cli-vars").out().strip());
        var list = cli(asAdmin(), "variables", "list", "-w", "cli-vars");
        assertTrue(list.out().startsWith("NAME"), list.out());
        assertEquals(4, list.out().lines().count(), list.out());
        assertTrue(!list.out().contains("changed"), "lists never print values");
        assertEquals(0, cli(asAdmin(), "variables", "delete", "token", "-w", "cli-vars").code());
        assertEquals(1, cli(asAdmin(), "variables", "get", "token", "-w", "cli-vars").code());
        var both = cli(asAdmin(), "variables", "set", "x", "v", "--stdin", "-w", "cli-vars");
        assertEquals(2, both.code(), "one source of the value only");
    }

    @Test
    void invitationsFromCreateToAccept() throws Exception {
        cli(asAdmin(), "workspaces", "create", "cli-invites");
        var created = cli(asAdmin(), "--json", "invitations", "create", "guest@example.com", "--role", "viewer", "-w", "cli-invites");
        assertEquals(0, created.code(), created.err());
        String id = Json.mapper().readTree(created.out()).path("invitation").path("id").asText();
        var list = cli(asAdmin(), "invitations", "list", "-w", "cli-invites");
        assertTrue(list.out().lines().anyMatch(l -> l.startsWith(id) && l.contains("guest@example.com") && l.contains("pending")),
                list.out());
        var guest = Map.of("HEARTH_URL", server.baseUrl(), "HEARTH_TOKEN",
                server.emailLogin("guest@example.com").path("access_token").asText());
        var accepted = cli(guest, "invitations", "accept", id);
        assertEquals(0, accepted.code(), accepted.err());
        assertTrue(accepted.out().contains("accepted"), accepted.out());
        assertTrue(cli(guest, "me").out().lines().anyMatch(l -> l.startsWith("cli-invites") && l.endsWith("viewer")));
    }

    @Test
    void operationsAreFollowedToTheirEnd() throws Exception {
        String ws = server.admin().create("/workspaces", Map.of("name", "cli-ops")).path("workspace").path("id").asText();
        String ok = server.server().operations().begin("test.sleep", ws, "thing",
                Json.mapper().readTree("{\"millis\": 400}")).id();
        var followed = cli(asAdmin(), "operations", "get", ok, "--wait");
        assertEquals(0, followed.code(), followed.err());
        assertTrue(followed.err().contains("test.sleep: step"), "progress is shown: " + followed.err());
        assertTrue(followed.out().contains("succeeded"), followed.out());
        String bad = server.server().operations().begin("test.sleep", ws, "thing",
                Json.mapper().readTree("{\"millis\": 50, \"fail\": true}")).id();
        var failed = cli(asAdmin(), "operations", "get", bad, "--wait");
        assertEquals(1, failed.code());
        assertTrue(failed.out().contains("asked to fail"), failed.out());
        var failures = cli(asAdmin(), "operations", "list", "-w", "cli-ops", "--state", "failed");
        assertEquals(0, failures.code(), failures.err());
        assertTrue(failures.out().lines().anyMatch(l -> l.startsWith(bad) && l.contains("asked to fail")), failures.out());
        assertTrue(failures.out().lines().noneMatch(l -> l.startsWith(ok)), failures.out());
    }

    @Test
    void cpCopiesFilesAndDirectoriesBothWays(@TempDir Path tmp) throws Exception {
        assumeComputers();
        cli(asAdmin(), "workspaces", "create", "cli-files");
        assertEquals(0, cli(asAdmin(), "computers", "create", "files", "-w", "cli-files").code());
        byte[] blob = new byte[300_000];
        new java.util.Random(3).nextBytes(blob);
        Files.write(tmp.resolve("blob.bin"), blob);
        Files.createDirectories(tmp.resolve("site/css"));
        Files.writeString(tmp.resolve("site/index.html"), "hello");
        Files.writeString(tmp.resolve("site/css/a.css"), "body {}");
        var up = cli(asAdmin(), "cp", "-w", "cli-files", tmp.resolve("blob.bin").toString(), "files:/data/blob.bin");
        assertEquals(0, up.code(), up.err());
        assertEquals(0, cli(asAdmin(), "cp", "-w", "cli-files", tmp.resolve("site").toString(), "files:/srv/site").code());
        assertEquals("body {}hello", cli(asAdmin(), "exec", "-w", "cli-files", "files", "--", "sh", "-c",
                "cat /srv/site/css/a.css /srv/site/index.html").out());
        var down = cli(asAdmin(), "cp", "-w", "cli-files", "files:/data/blob.bin", tmp.resolve("back.bin").toString());
        assertEquals(0, down.code(), down.err());
        assertArrayEquals(blob, Files.readAllBytes(tmp.resolve("back.bin")));
        Files.createDirectories(tmp.resolve("out"));
        assertEquals(0, cli(asAdmin(), "cp", "-w", "cli-files", "files:/srv/site", tmp.resolve("out").toString()).code());
        assertEquals("body {}", Files.readString(tmp.resolve("out/site/css/a.css")), "into an existing directory, by name");
        var missing = cli(asAdmin(), "cp", "-w", "cli-files", "files:/no/such", tmp.resolve("x").toString());
        assertEquals(1, missing.code());
        assertTrue(missing.err().contains("not_found"), missing.err());
        var neither = cli(asAdmin(), "cp", "-w", "cli-files", "a", "b");
        assertTrue(neither.err().contains("COMPUTER:/path"), neither.err());
    }

    @Test
    void backgroundProcessesAreStartedListedFollowedAndKilled() {
        assumeComputers();
        cli(asAdmin(), "workspaces", "create", "cli-procs");
        var made = cli(asAdmin(), "computers", "create", "worker", "-w", "cli-procs", "--", "sh", "-c", "echo booted");
        assertEquals(0, made.code(), made.err());
        var started = cli(asAdmin(), "exec", "-d", "--tag", "job", "-w", "cli-procs", "worker", "--", "sh", "-c",
                "echo working; echo careful >&2; sleep 600");
        assertEquals(0, started.code(), started.err());
        String pid = started.out().strip();
        assertTrue(pid.matches("[0-9]+"), started.out());
        var ps = cli(asAdmin(), "ps", "-w", "cli-procs", "worker");
        assertTrue(ps.out().lines().anyMatch(l -> l.startsWith(pid + " ") && l.contains("job") && l.contains("running")),
                ps.out());
        var output = cli(asAdmin(), "logs", "-w", "cli-procs", "worker", pid);
        assertEquals("working\n", output.out());
        assertEquals("careful\n", output.err());
        assertEquals(0, cli(asAdmin(), "kill", "-w", "cli-procs", "worker", pid, "-s", "KILL").code());
        var followed = cli(asAdmin(), "logs", "-f", "-w", "cli-procs", "worker", pid);
        assertTrue(followed.err().contains("exited with 137"), followed.err());
        assertTrue(cli(asAdmin(), "logs", "-w", "cli-procs", "worker").out().contains("booted"), "the main process's log");
    }

    @Test
    void computersAndExec() {
        assumeComputers();
        cli(asAdmin(), "workspaces", "create", "cli-computers");
        var created = cli(asAdmin(), "computers", "create", "box", "-w", "cli-computers", "--env", "WHO=world");
        assertEquals(0, created.code(), created.err());
        assertTrue(created.out().lines().anyMatch(l -> l.startsWith("box") && l.contains("ready")), created.out());
        var hello = cli(asAdmin(), "exec", "-w", "cli-computers", "box", "--", "sh", "-c", "echo hello $WHO; echo warn >&2; exit 7");
        assertEquals(7, hello.code(), "the command's exit code");
        assertEquals("hello world\n", hello.out());
        assertEquals("warn\n", hello.err());
        var piped = cli(asAdmin(), new ByteArrayInputStream("abc".getBytes(StandardCharsets.UTF_8)),
                "exec", "-w", "cli-computers", "--stdin", "box", "--", "wc", "-c");
        assertEquals("3", piped.out().strip());
        var big = cli(asAdmin(), "exec", "-w", "cli-computers", "box", "--", "sh", "-c", "head -c 1500000 /dev/zero | tr '\\0' z");
        assertEquals(1_500_000, big.out().length(), "the CLI streams, so nothing is capped");
        // Typed a moment after start, as a person would: busybox sh drops input that arrives while it
        // sets up its line editor (noted; a real terminal types after the prompt).
        var typed = TypedInput.afterASecond("echo tty-$((6*7)); exit 5\n");
        var shell = cli(asAdmin(), typed, "exec", "-it", "-w", "cli-computers", "box", "--", "/bin/sh");
        assertEquals(5, shell.code(), shell.err());
        assertTrue(shell.out().contains("tty-42"), shell.out());
        assertTrue(cli(asAdmin(), "computers", "list", "-w", "cli-computers").out().contains("box"));
        var usage = cli(asAdmin(), "computers", "metrics", "box", "-w", "cli-computers");
        assertEquals(0, usage.code(), usage.err());
        assertTrue(usage.out().startsWith("STATE") && usage.out().lines().skip(1).findFirst().orElse("").startsWith("ready"),
                usage.out());
        var asleep = cli(asAdmin(), "computers", "sleep", "box", "-w", "cli-computers");
        assertEquals(0, asleep.code(), asleep.err());
        assertTrue(asleep.out().contains("sleeping"), asleep.out());
        var awake = cli(asAdmin(), "computers", "wake", "box", "-w", "cli-computers");
        assertTrue(awake.out().contains("ready"), awake.out());
        var dozy = cli(asAdmin(), "computers", "update", "box", "-w", "cli-computers", "--auto-sleep", "600");
        assertEquals(0, dozy.code(), dozy.err());
        assertEquals(0, cli(asAdmin(), "computers", "update", "box", "-w", "cli-computers", "--auto-sleep", "never").code());
        assertEquals(0, cli(asAdmin(), "computers", "update", "box", "-w", "cli-computers", "--protected").code());
        assertEquals(1, cli(asAdmin(), "computers", "delete", "box", "-w", "cli-computers").code(), "protected");
        assertEquals(0, cli(asAdmin(), "computers", "update", "box", "-w", "cli-computers", "--no-protected").code());
        assertEquals(0, cli(asAdmin(), "computers", "delete", "box", "-w", "cli-computers").code());

        var pulled = cli(asAdmin(), "images", "pull", "hearth/busybox", "-w", "cli-computers");
        assertEquals(0, pulled.code(), pulled.err());
        assertTrue(cli(asAdmin(), "images", "list", "-w", "cli-computers").out().lines()
                .anyMatch(l -> l.startsWith("hearth/busybox") && l.contains("ready") && l.contains("sha256:")));
        assertEquals(0, cli(asAdmin(), "images", "rm", "hearth/busybox", "-w", "cli-computers").code());
        assertEquals(1, cli(asAdmin(), "images", "list", "-w", "cli-computers").out().lines().count(), "only the header");
    }

    @Test
    void databasesConnectionResetAndPsql() {
        assumeDatabases();
        cli(asAdmin(), "workspaces", "create", "cli-databases");
        var made = cli(asAdmin(), "databases", "create", "notes", "-w", "cli-databases");
        assertEquals(0, made.code(), made.err());
        assertTrue(made.out().lines().anyMatch(l -> l.startsWith("notes") && l.contains("sleeping")), made.out());
        var shown = cli(asAdmin(), "databases", "connection", "notes", "-w", "cli-databases");
        assertTrue(shown.out().contains("postgresql://notes:"), shown.out());
        // psql's exit code comes back: 0 for a query that works (it wakes the database), 1 for one that fails.
        assertEquals(0, cli(asAdmin(), "psql", "notes", "-w", "cli-databases", "--", "-c", "CREATE TABLE t (n int)").code());
        assertEquals(0, cli(asAdmin(), "psql", "notes", "-w", "cli-databases", "--pooler", "--", "-c", "SELECT * FROM t").code());
        assertEquals(1, cli(asAdmin(), "psql", "notes", "-w", "cli-databases", "--", "-v", "ON_ERROR_STOP=1", "-c",
                "SELECT * FROM missing").code());
        var listed = cli(asAdmin(), "databases", "list", "-w", "cli-databases");
        assertTrue(listed.out().lines().anyMatch(l -> l.startsWith("notes") && l.contains("ready")), listed.out());
        var reset = cli(asAdmin(), "databases", "reset-credentials", "notes", "-w", "cli-databases");
        assertEquals(0, reset.code(), reset.err());
        assertTrue(reset.out().contains("RESET PENDING  false"), reset.out());
        assertEquals(0, cli(asAdmin(), "psql", "notes", "-w", "cli-databases", "--", "-c", "SELECT 1").code());
        var checkpoint = cli(asAdmin(), "databases", "checkpoints", "create", "notes", "--name", "first", "-w", "cli-databases");
        assertEquals(0, checkpoint.code(), checkpoint.err());
        assertTrue(checkpoint.out().lines().anyMatch(l -> l.startsWith("first") && l.contains("ready")), checkpoint.out());
        assertEquals(0, cli(asAdmin(), "databases", "create", "notes-branch", "--from-checkpoint", "notes/first",
                "-w", "cli-databases").code());
        assertEquals(0, cli(asAdmin(), "psql", "notes-branch", "-w", "cli-databases", "--", "-c", "SELECT * FROM t").code());
        var history = cli(asAdmin(), "databases", "history", "notes", "-w", "cli-databases");
        assertEquals(0, history.code(), history.err());
        assertTrue(history.out().lines().anyMatch(l -> l.matches("\\d{4}-.* +24")), history.out());
        var atNow = cli(asAdmin(), "databases", "branch", "notes", "notes-now", "--at", java.time.Instant.now().toString(),
                "-w", "cli-databases");
        assertEquals(0, atNow.code(), atNow.err());
        assertEquals(0, cli(asAdmin(), "psql", "notes-now", "-w", "cli-databases", "--", "-c", "SELECT * FROM t").code());
        var restored = cli(asAdmin(), "databases", "restore", "notes-now", "--at", java.time.Instant.now().toString(),
                "-w", "cli-databases");
        assertEquals(0, restored.code(), restored.err());
        assertTrue(restored.out().lines().anyMatch(l -> l.startsWith("notes-now-before-")), restored.out());
        var insights = cli(asAdmin(), "databases", "insights", "notes", "--order", "mean", "-w", "cli-databases");
        assertEquals(0, insights.code(), insights.err());
        assertTrue(insights.out().lines().anyMatch(l -> l.contains("CREATE TABLE t")), insights.out());
        var future = cli(asAdmin(), "databases", "branch", "notes", "notes-later", "--at", "2999-01-01T00:00:00Z",
                "-w", "cli-databases");
        assertEquals(1, future.code());
        assertTrue(future.err().contains("in the future"), future.err());
        assertEquals(0, cli(asAdmin(), "databases", "sleep", "notes", "-w", "cli-databases").code());
        assertEquals(0, cli(asAdmin(), "databases", "delete", "notes-branch", "-w", "cli-databases").code());
        var metrics = cli(asAdmin(), "databases", "metrics", "notes", "-w", "cli-databases");
        assertEquals(0, metrics.code(), metrics.err());
        assertTrue(metrics.out().lines().anyMatch(l -> l.matches("sleeping +- +\\d+")), "asleep: no sessions " + metrics.out());
    }

    @Test
    void checkpointsRestoreAndFork() {
        assumeComputers();
        cli(asAdmin(), "workspaces", "create", "cli-checkpoints");
        assertEquals(0, cli(asAdmin(), "computers", "create", "src", "-w", "cli-checkpoints", "--env", "WHO=src").code());
        cli(asAdmin(), "exec", "-w", "cli-checkpoints", "src", "--", "sh", "-c", "echo first > /data/v");
        var made = cli(asAdmin(), "checkpoints", "create", "src", "--name", "first", "-w", "cli-checkpoints");
        assertEquals(0, made.code(), made.err());
        assertTrue(made.out().lines().anyMatch(l -> l.startsWith("first") && l.contains("ready")), made.out());
        cli(asAdmin(), "exec", "-w", "cli-checkpoints", "src", "--", "sh", "-c", "echo second > /data/v");
        var listed = cli(asAdmin(), "checkpoints", "list", "src", "-w", "cli-checkpoints");
        assertTrue(listed.out().contains("first"), listed.out());

        var restored = cli(asAdmin(), "computers", "restore", "src", "first", "-w", "cli-checkpoints");
        assertEquals(0, restored.code(), restored.err());
        assertEquals("first\n", cli(asAdmin(), "exec", "-w", "cli-checkpoints", "src", "--", "cat", "/data/v").out());
        assertTrue(cli(asAdmin(), "--json", "computers", "get", "src", "-w", "cli-checkpoints").out()
                .contains("\"generation\" : 2"), "restore bumps the generation");

        var fork = cli(asAdmin(), "computers", "create", "copy", "--from-checkpoint", "src/first", "-w", "cli-checkpoints");
        assertEquals(0, fork.code(), fork.err());
        assertEquals("first src\n", cli(asAdmin(), "exec", "-w", "cli-checkpoints", "copy", "--", "sh", "-c",
                "echo $(cat /data/v) $WHO").out());
        var deleted = cli(asAdmin(), "checkpoints", "delete", "src", "first", "-w", "cli-checkpoints");
        assertEquals(0, deleted.code(), deleted.err());
        assertTrue(deleted.out().contains("deleted"), deleted.out());
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
            } catch (AssertionError | UncheckedIOException notYet) {
                Thread.sleep(25);
            }
        }
        throw new AssertionError("no code mailed to " + email);
    }
}
