package dev.hearth.e2b;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.client.Trust;
import dev.hearth.server.Config;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.server.tls.TlsSettings;
import dev.hearth.support.ChildRun;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.Repository;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * E2B's own SDK ({@code e2b} from npm, pinned in app/src/test/e2b/package-lock.json, unchanged) drives
 * a real server over HTTPS with its self-signed CA: each {@code *.test.mjs} file there is one test
 * here. The SDK reaches the API at {@code https://api.DOMAIN} and sandboxes at
 * {@code https://49983-ID.DOMAIN} (E2B_DOMAIN), or through one address by routing headers.
 */
@HearthServerTest(config = "e2b", computers = true)
class E2bSdkTest {
    private static final String DOMAIN = "e2b.localhost";
    private static final Path SOURCES = Repository.root().resolve("app/src/test/e2b");
    private static final Path WORK = Path.of("target", "e2b-sdk").toAbsolutePath();
    private static final Pattern PASS = Pattern.compile("(?m)^# pass (\\d+)");
    private static final Pattern FAIL = Pattern.compile("(?m)^# fail (\\d+)");

    @Injected
    private TestServer server;
    private HearthClient admin;
    private final Map<String, String> env = new HashMap<>();

    UnaryOperator<Config> e2b() throws Exception {
        String base = TestImages.e2bBase();
        return c -> c.withRouter(new RouterSettings("127.0.0.1", 0, DOMAIN, Optional.empty()))
                .withTls(new TlsSettings(Optional.empty(), Optional.empty(), true, Optional.empty()))
                .withE2bTemplates(Map.of("base", base));
    }

    @BeforeAll
    void install() throws Exception {
        Files.createDirectories(WORK);
        try (Stream<Path> files = Files.list(SOURCES)) {
            for (Path file : files.filter(f -> !Files.isDirectory(f)).toList()) {
                Files.copy(file, WORK.resolve(file.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        // npm ci only when the lock changed since the last install in this build directory.
        Path installed = WORK.resolve("node_modules/.package-lock.json");
        if (!Files.exists(installed) || Files.getLastModifiedTime(installed).compareTo(
                Files.getLastModifiedTime(WORK.resolve("package-lock.json"))) < 0) {
            var npm = run(List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), Map.of(), 5);
            assertEquals(0, npm.exit(), npm.output());
        }
        Path ca = server.dataDir.resolve("tls/ca.pem");
        admin = new HearthClient(server.baseUrl(), KeyFileTokens.read(server.dataDir.resolve("admin-key.json")),
                Optional.of(Trust.of(ca)));
        var router = server.server().routerAddress();
        String api = server.baseUrl().replaceFirst("/v1$", "");
        // In E2B's own spelling (e2b_ and hex), which some versions of its SDK insist on.
        env.put("E2B_API_KEY", apiKey(TestServer.workspace(admin)).replaceFirst("^hk_", "e2b_"));
        env.put("HEARTH_E2B_STRANGER_KEY", apiKey(TestServer.workspace(admin)));
        env.put("E2B_DOMAIN", router.host());
        env.put("HEARTH_E2B_API_URL", api + "/e2b");
        env.put("HEARTH_E2B_SANDBOX_URL", router.scheme() + "://127.0.0.1:" + URI.create("x://" + router.host()).getPort());
        env.put("NODE_EXTRA_CA_CERTS", ca.toString());
        env.put("NODE_OPTIONS", "--import=" + WORK.resolve("localhost-dns.mjs").toUri());
        assertTrue(router.scheme().equals("https") && router.host().startsWith(DOMAIN + ":"), router.toString());
    }

    private String apiKey(JsonNode workspace) {
        var created = admin.create("/workspaces/" + workspace.path("id").asText() + "/api_keys", Map.of("name", "e2b"));
        return created.path("secret").asText();
    }

    @TestFactory
    Stream<DynamicTest> e2bSdkFiles() throws IOException {
        try (Stream<Path> files = Files.list(SOURCES)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".test.mjs")).sorted().toList()
                    .stream().map(name -> DynamicTest.dynamicTest(name, () -> passes(name)));
        }
    }

    private void passes(String file) throws Exception {
        var run = run(List.of("node", "--test", "--test-reporter=tap", file), env, 10);
        var pass = PASS.matcher(run.output());
        var fail = FAIL.matcher(run.output());
        assertTrue(pass.find() && Integer.parseInt(pass.group(1)) > 0, run.output());
        assertTrue(fail.find() && fail.group(1).equals("0"), run.output());
        assertEquals(0, run.exit(), run.output());
    }

    private static ChildRun run(List<String> command, Map<String, String> env, int minutes) throws Exception {
        return ChildRun.of(WORK, command, env, minutes);
    }
}
