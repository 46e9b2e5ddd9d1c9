package dev.hearth.support;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.client.TokenSource;
import dev.hearth.fs.Disk;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.databases.DatabaseSettings;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.server.teardown.Teardown;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The real server on a free loopback port with its own data directory, and clients of it. Restarts
 * keep the port, since the base URL names the token audience.
 */
public final class TestServer implements AutoCloseable {
    private static final Pattern CODE = Pattern.compile("sign-in code is (\\d{6})");

    public final MutableClock clock = new MutableClock();
    public final Path dataDir;
    private Config config;
    private HearthServer server;
    private final Map<String, Integer> earlierRestarts = new HashMap<>();
    private boolean closed;
    private final ContractCheck contract = new ContractCheck();

    private TestServer(Path dataDir, int port, UnaryOperator<Config> customize) throws Exception {
        this.dataDir = dataDir;
        // The router on a free port, so that test servers (and a hearth serve on 7301) never collide.
        config = customize.apply(Config.defaults(dataDir).withPort(port).withClock(clock)
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()))
                // Databases on ports of their own, so that a hearth serve on 7400-7999 and 6432 is left alone.
                .withDatabases(new DatabaseSettings("127.0.0.1", "127.0.0.1", 27400, 27599, 0))
                // Tests build their images in JUnit's temporary directories.
                .withLocalImages(List.of(Path.of(System.getProperty("java.io.tmpdir")), TestImages.CACHE)))
                .withObserver(contract);
        server = HearthServer.start(config);
        contract.attach(() -> server.routes().routes());
        config = config.withPort(URI.create(server.baseUrl()).getPort());
    }

    public static TestServer start() {
        return start(c -> c);
    }

    public static TestServer start(UnaryOperator<Config> customize) {
        try {
            return new TestServer(Files.createTempDirectory("hearth-test"), 0, customize);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the server", e);
        }
    }

    /** A server on an existing data directory and a given port (e.g. after another process died there). */
    /**
     * A restart on a port a killed server held: should its port be held a moment longer (it was
     * once in CI, by what is not known), the start is tried again for 5 s and the holder named.
     */
    public static TestServer startOn(Path dataDir, int port, UnaryOperator<Config> customize) {
        for (int attempt = 1; ; attempt++) {
            try {
                return new TestServer(dataDir, port, customize);
            } catch (Exception e) {
                boolean held = port != 0 && isBindFailure(e);
                if (!held || attempt == 10) {
                    throw new IllegalStateException("cannot start the server" + (held ? "; port " + port
                            + " is held: " + holders(port) : ""), e);
                }
                System.err.println("port " + port + " is held (" + holders(port) + "); trying again");
                sleep(500);
            }
        }
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.BindException) {
                return true;
            }
        }
        return false;
    }

    private static String holders(int port) {
        try {
            var ss = new ProcessBuilder("ss", "-tanp", "sport = :" + port).redirectErrorStream(true).start();
            String out = new String(ss.getInputStream().readAllBytes()).strip();
            ss.waitFor();
            return out.replace('\n', ';');
        } catch (IOException | InterruptedException e) {
            return "ss failed: " + e;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String baseUrl() {
        return server.baseUrl();
    }

    /** This server's own address, when its public URL names another (a cluster's, after a join). */
    public String localBaseUrl() {
        return server.localBaseUrl();
    }

    public HearthServer server() {
        return server;
    }

    /** Stops the server and starts it again on the same data directory, store and port. */
    public void restart() throws Exception {
        earlierRestarts.putAll(server.computerRestarts());
        server.close();
        server = HearthServer.start(config);
    }

    /** What a test does to the data directory while the server is stopped. */
    public interface Between {
        void run() throws Exception;
    }

    /** Stops, runs {@code between} (as if the server had crashed and this is what it left), starts again. */
    public void restartAfter(Between between) throws Exception {
        earlierRestarts.putAll(server.computerRestarts());
        server.close();
        between.run();
        server = HearthServer.start(config);
    }

    /** Restarts of computers whose main process exited, by name, over every start of this server. */
    public Map<String, Integer> restarts() {
        var all = new HashMap<>(earlierRestarts);
        server.computerRestarts().forEach((name, n) -> all.merge(name, n, Integer::sum));
        return all;
    }

    public Config config() {
        return config;
    }

    /** Restarts with a changed configuration (kept for later restarts). */
    public void restart(UnaryOperator<Config> change) throws Exception {
        config = change.apply(config);
        restart();
    }

    public void stop() throws Exception {
        server.close();
    }

    public HearthClient anonymous() {
        return new HearthClient(baseUrl(), TokenSource.none());
    }

    public HearthClient withToken(String token) {
        return new HearthClient(baseUrl(), TokenSource.of(token));
    }

    /** The first-start admin, signing in with admin-key.json as a script would. */
    public HearthClient admin() {
        return new HearthClient(baseUrl(), KeyFileTokens.read(dataDir.resolve("admin-key.json")));
    }

    /** An access token of the first-start admin, for requests written by hand. */
    public String adminToken() {
        var admin = admin();
        return KeyFileTokens.read(dataDir.resolve("admin-key.json")).token(admin).orElseThrow();
    }

    public HearthClient keyPrincipal(JsonNode keyFile) {
        return new HearthClient(baseUrl(), new KeyFileTokens(keyFile));
    }

    /** Signs in by email through the real flow, reading the code from the outbox. */
    public JsonNode emailLogin(String email) {
        anonymous().post("/auth/email/start", Map.of("email", email));
        return anonymous().post("/auth/email/verify", Map.of("email", email, "code", lastCode(email)));
    }

    public HearthClient emailUser(String email) {
        return withToken(emailLogin(email).path("access_token").asText());
    }

    /** The code in the newest outbox mail to {@code email}. */
    public String lastCode(String email) {
        try (Stream<Path> files = Files.list(dataDir.resolve("outbox"))) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                String text = Files.readString(file);
                var m = CODE.matcher(text);
                if (text.startsWith("To: " + email + "\n") && m.find()) {
                    return m.group(1);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new AssertionError("no sign-in mail to " + email + " in the outbox");
    }

    /**
     * Takes down what the data directory's servers left on the host (sandboxes, namespaces, cgroups,
     * processes, tables, mounts), as {@code hearth admin teardown} does; its server must have stopped.
     */
    public static void tearDown(Path dataDir) throws Exception {
        if (Files.isDirectory(dataDir)) {
            Teardown.run(dataDir);
        }
    }

    /** A workspace created by {@code client}, with a unique name. */
    public static JsonNode workspace(HearthClient client) {
        return client.create("/workspaces", Map.of("name", uniqueName("ws"))).path("workspace");
    }

    public static String uniqueName(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Stops the server and deletes its data directory; closing again does nothing. */
    @Override
    public void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        server.close();
        tearDown(dataDir);
        Disk.deleteTree(dataDir);
        contract.verify();
    }
}
