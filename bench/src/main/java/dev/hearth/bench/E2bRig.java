package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.client.HearthClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code hearth serve} with E2B's facade, for E2bSuite and E2bBench: E2B's template {@code base}
 * (scripts/build-e2b-base, made once in .images/), the router's domain under .localhost (which the
 * preload app/src/test/e2b/localhost-dns.mjs resolves for Node.js), a workspace, an API key in E2B's
 * spelling, and the npm packages of bench/e2b (pinned by its lock) in bench/target/e2b.
 */
final class E2bRig implements AutoCloseable {
    static final String DOMAIN = "e2b.localhost";
    static final Path NODE = Path.of("bench/target/e2b").toAbsolutePath();

    final ServedHearth hearth;
    final HearthClient admin;
    final String workspace;
    final String apiKey;
    final String base;
    private final boolean tls;

    private E2bRig(ServedHearth hearth, String base, boolean tls) throws IOException {
        this.hearth = hearth;
        this.base = base;
        this.tls = tls;
        this.admin = hearth.admin();
        this.workspace = admin.create("/workspaces", Map.of("name", "e2b")).path("workspace").path("id").asText();
        String secret = admin.create("/workspaces/" + workspace + "/api_keys", Map.of("name", "e2b")).path("secret")
                .asText();
        this.apiKey = "e2b_" + secret.substring("hk_".length());
    }

    /** Over HTTPS with a self-signed CA ({@code tls}), as the SDK speaks by domain, or over plain HTTP. */
    static E2bRig start(boolean tls) throws Exception {
        String base = base();
        installNode();
        Path dataDir = Files.createTempDirectory("hearth-e2b").resolve("data");
        var args = new java.util.ArrayList<>(List.of("--router-domain", DOMAIN, "--e2b-template", "base=" + base));
        if (tls) {
            args.add("--tls-self-signed");
        }
        return new E2bRig(ServedHearth.start(dataDir, args.toArray(String[]::new)), base, tls);
    }

    /** What Node.js needs to reach the server with E2B's SDK: by domain over HTTPS, else by its addresses. */
    Map<String, String> env() {
        var env = new HashMap<String, String>();
        env.put("E2B_API_KEY", apiKey);
        env.put("NODE_OPTIONS", "--import=" + Path.of("app/src/test/e2b/localhost-dns.mjs").toAbsolutePath().toUri());
        if (tls) {
            env.put("E2B_DOMAIN", DOMAIN + ":" + hearth.routerPort());
            env.put("NODE_EXTRA_CA_CERTS", hearth.dataDir().resolve("tls/ca.pem").toString());
        } else {
            env.put("E2B_API_URL", hearth.baseUrl().replaceFirst("/v1$", "/e2b"));
            env.put("E2B_SANDBOX_URL", "http://127.0.0.1:" + hearth.routerPort());
        }
        return env;
    }

    /** E2B's base image, made from Debian's packages the first time (about a minute). */
    static String base() throws Exception {
        Path out = Path.of(".images/e2b-base").toAbsolutePath();
        run(List.of("scripts/build-e2b-base", out.toString()), Path.of("."), Map.of(), 15);
        return "oci:" + out.resolve("layout") + ":base";
    }

    /** npm ci of bench/e2b into bench/target/e2b (with E2bBench's script), again only when its lock changed. */
    static void installNode() throws Exception {
        Files.createDirectories(NODE);
        for (String file : List.of("package.json", "package-lock.json", "bench.mjs")) {
            Files.copy(Path.of("bench/e2b", file), NODE.resolve(file), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.COPY_ATTRIBUTES);
        }
        Path installed = NODE.resolve("node_modules/.package-lock.json");
        if (!Files.exists(installed) || Files.getLastModifiedTime(installed)
                .compareTo(Files.getLastModifiedTime(NODE.resolve("package-lock.json"))) < 0) {
            run(List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), NODE, Map.of(), 10);
        }
    }

    /** Runs a command to its end; its output goes to this one's stderr. Fails unless it exits 0. */
    static void run(List<String> command, Path dir, Map<String, String> env, int minutes) throws Exception {
        var builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(env);
        var process = builder.start();
        if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new IllegalStateException(command + " took over " + minutes + " minutes");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(command + " exited " + process.exitValue());
        }
    }

    /** Deletes what the run left (computers, kept checkpoints), stops the server, removes its data directory. */
    @Override
    public void close() throws Exception {
        try {
            for (JsonNode c : admin.get("/workspaces/" + workspace + "/computers?limit=100").path("computers")) {
                admin.delete("/computers/" + c.path("id").asText());
            }
            for (JsonNode k : admin.get("/workspaces/" + workspace + "/checkpoints?limit=100").path("checkpoints")) {
                admin.delete("/workspaces/" + workspace + "/checkpoints/" + k.path("id").asText());
            }
        } finally {
            hearth.close();
            ComputerBench.TestCleanup.removeAll(hearth.dataDir());
        }
    }
}
