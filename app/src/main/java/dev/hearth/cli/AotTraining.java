package dev.hearth.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.hearth.api.JsonTrees;
import dev.hearth.fs.Disk;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * The training run of the JDK's AOT cache ({@code -XX:AOTCacheOutput}, made by {@code ./hearth} once
 * per build): everyday commands against a stand-in server on the loopback, so that the classes
 * they load (picocli, the HTTP client, JSON, JOSE signing, tables) are loaded from the cache on
 * every later run. Hidden: nobody runs it by hand.
 */
@Command(name = "aot-training", hidden = true, description = "Run the commands the start-up cache is trained on.")
final class AotTraining implements Callable<Integer> {
    private static final String ANSWER = """
            {"principal":{"id":"p","name":"training","email":null,"kind":"key"},"workspaces":[],
             "computers":[],"databases":[],"variables":[],"has_more":false,"next_cursor":null,
             "access_token":"t","token_type":"Bearer","expires_in":900}""";

    private final Cli.Context context;

    AotTraining(Cli.Context context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        var server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", AotTraining::answer);
        server.start();
        Path dir = Files.createTempDirectory("hearth-aot");
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
            Path keyFile = keyFile(dir, url);
            var env = Map.of("HEARTH_URL", url, "HEARTH_KEY_FILE", keyFile.toString());
            var quiet = new PrintStream(OutputStream.nullOutputStream(), true);
            var training = new Cli.Context(env, new ByteArrayInputStream(new byte[0]), quiet, quiet, dir.resolve("config"));
            for (var args : new String[][] {{"me"}, {"me"}, {"workspaces", "list"}, {"computers", "list", "-w", "demo"},
                    {"exec", "-w", "demo", "box", "--", "true"}, {"--help"}}) {
                Cli.run(args, training);
            }
        } finally {
            server.stop(0);
            Disk.deleteTree(dir);
        }
        return 0;
    }

    private static void answer(HttpExchange exchange) throws IOException {
        boolean stream = exchange.getRequestURI().getPath().endsWith("/exec");
        byte[] body = (stream ? "{\"stdout\":\"\"}\n{\"exit_code\":0}\n" : ANSWER).getBytes(StandardCharsets.UTF_8);
        exchange.getRequestBody().readAllBytes();
        exchange.getResponseHeaders().set("Content-Type", stream ? "application/x-ndjson" : "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (var out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static Path keyFile(Path dir, String url) throws Exception {
        var generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        String pem = "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder().encodeToString(
                generator.generateKeyPair().getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n";
        var file = JsonTrees.object();
        file.put("subject", "p");
        file.put("key_id", "k");
        file.put("audience", url);
        file.put("token_url", url + "/auth/token");
        file.put("private_key", pem);
        Path path = dir.resolve("key.json");
        Files.writeString(path, JsonTrees.text(file));
        return path;
    }
}
