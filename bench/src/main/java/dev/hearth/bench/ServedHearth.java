package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.client.Trust;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code hearth serve} in its own JVM, as it is deployed, so that the harness's client, JIT and
 * garbage collector do not share the server's process: a caller of the API is another process.
 */
final class ServedHearth implements AutoCloseable {
    private final Process process;
    private final String baseUrl;
    private final Path dataDir;
    private final int routerPort;

    private ServedHearth(Process process, String baseUrl, Path dataDir, int routerPort) {
        this.process = process;
        this.baseUrl = baseUrl;
        this.dataDir = dataDir;
        this.routerPort = routerPort;
    }

    /** Starts the server on free loopback ports and waits until it answers /health. */
    static ServedHearth start(Path dataDir, String... extraArgs) throws Exception {
        return start(dataDir, freePort(), extraArgs);
    }

    /** The same on API port {@code api} (a second node's, named in its admin key file beforehand). */
    static ServedHearth start(Path dataDir, int api, String... extraArgs) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String jar = Path.of("app/target/hearth.jar").toAbsolutePath().toString();
        int router = freePort();
        var command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-jar", jar, "serve",
                "--data-dir", dataDir.toString(), "--listen", "127.0.0.1:" + api,
                "--router-listen", "127.0.0.1:" + router));
        // No warm pool unless the bench asks: its sandboxes would take CPU and memory from what is measured.
        if (!List.of(extraArgs).contains("--warm-pool")) {
            command.addAll(List.of("--warm-pool", "0"));
        }
        command.addAll(List.of(extraArgs));
        var process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log(dataDir).toFile()).start();
        String scheme = List.of(extraArgs).contains("--tls-self-signed") ? "https" : "http";
        var served = new ServedHearth(process, scheme + "://127.0.0.1:" + api + "/v1", dataDir, router);
        served.awaitHealthy();
        return served;
    }

    /**
     * The same inside network namespace {@code netns}, listening on {@code host} (the namespace's
     * address), API on 7300 and router on 7301, other nodes reaching it there.
     */
    static ServedHearth startIn(String netns, String host, Path dataDir, String... extraArgs) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String jar = Path.of("app/target/hearth.jar").toAbsolutePath().toString();
        var command = new ArrayList<>(List.of("nsenter", "--net=/var/run/netns/" + netns, java,
                "--enable-native-access=ALL-UNNAMED", "-jar", jar, "serve", "--data-dir", dataDir.toString(),
                "--listen", host + ":7300", "--router-listen", host + ":7301", "--node-address", host + ":7300",
                "--warm-pool", "0"));
        command.addAll(List.of(extraArgs));
        var process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log(dataDir).toFile()).start();
        var served = new ServedHearth(process, "http://" + host + ":7300/v1", dataDir, 7301);
        served.awaitHealthy();
        return served;
    }

    /** The admin's client (the JDK's HttpClient) with the admin key file (trusting a self-signed CA of the server's). */
    HearthClient admin() throws IOException {
        var ca = dataDir.resolve("tls/ca.pem");
        return new HearthClient(baseUrl, KeyFileTokens.read(dataDir.resolve("admin-key.json")),
                baseUrl.startsWith("https:") ? Optional.of(Trust.of(ca)) : Optional.empty());
    }

    String baseUrl() {
        return baseUrl;
    }

    int routerPort() {
        return routerPort;
    }

    Path dataDir() {
        return dataDir;
    }

    /** The admin's access token and a curl-like client sending it (the token lives 15 minutes or more). */
    BlockingHttp blockingAdmin() throws IOException {
        var admin = admin();
        String token = KeyFileTokens.read(dataDir.resolve("admin-key.json")).token(admin).orElseThrow();
        return new BlockingHttp(baseUrl, token);
    }

    private void awaitHealthy() throws Exception {
        HttpClient probe = null;
        var request = HttpRequest.newBuilder(URI.create(baseUrl + "/health")).build();
        for (int i = 0; i < 600; i++) {
            if (!process.isAlive()) {
                throw new IllegalStateException("hearth serve exited:\n" + Files.readString(log()));
            }
            try {
                probe = probe != null ? probe : prober();
                if (probe.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200
                        && Files.exists(dataDir.resolve("admin-key.json"))) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("hearth serve did not answer /health within 60 s");
    }

    /** A client of /health; over HTTPS, once the server has written its self-signed CA. */
    private HttpClient prober() throws IOException {
        if (!baseUrl.startsWith("https:")) {
            return HttpClient.newHttpClient();
        }
        Path ca = dataDir.resolve("tls/ca.pem");
        if (!Files.exists(ca)) {
            throw new IOException("no CA yet");
        }
        return HttpClient.newBuilder().sslContext(Trust.of(ca)).build();
    }

    private Path log() {
        return log(dataDir);
    }

    private static Path log(Path dataDir) {
        return dataDir.resolveSibling(dataDir.getFileName() + ".log");
    }

    static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Kills the server with SIGKILL, as a crash would: nothing of it runs its shutdown. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /** Stops the server as an operator would (SIGTERM), so it shuts its sandboxes down. */
    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
