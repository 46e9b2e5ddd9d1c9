package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Drives {@code GET /v1/workspaces/{ws}} on the real service (SQLite store, real token checks) with
 * many concurrent clients, beside a bare Jetty handler answering the same bytes on the same kind of
 * thread pool, in the same run. The ratio is the figure: what Hearth's routing, authentication,
 * authorization and store read cost over Jetty itself.
 *
 * <p>Arguments: {@code [clients=32] [seconds=10] [rounds=3]}.
 */
public final class ApiBench {
    record Result(String target, long requests, double seconds, long p50Micros, long p99Micros) {
        double rps() {
            return requests / seconds;
        }
    }

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 32;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        var dataDir = Files.createTempDirectory("hearth-bench");
        try (var hearth = HearthServer.start(Config.defaults(dataDir).withPort(0))) {
            var admin = new HearthClient(hearth.baseUrl(), KeyFileTokens.read(dataDir.resolve("admin-key.json")));
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            String token = KeyFileTokens.read(dataDir.resolve("admin-key.json")).token(admin).orElseThrow();
            URI hearthUri = URI.create(hearth.baseUrl() + "/workspaces/" + ws);
            byte[] sameBytes = HttpClient.newHttpClient().send(request(hearthUri, token),
                    HttpResponse.BodyHandlers.ofByteArray()).body();
            var bare = bareJetty(sameBytes);
            URI bareUri = URI.create("http://127.0.0.1:" + ((ServerConnector) bare.getConnectors()[0]).getLocalPort() + "/");
            System.out.printf("GET /v1/workspaces/{ws}: %d clients, %d s per run, %d rounds, body %d bytes%n",
                    clients, seconds, rounds, sameBytes.length);
            run("warm-up bare", bareUri, token, clients, 3);
            run("warm-up hearth", hearthUri, token, clients, 3);
            var results = new ArrayList<Result>();
            for (int round = 0; round < rounds; round++) {
                results.add(run("bare jetty", bareUri, token, clients, seconds));
                results.add(run("hearth", hearthUri, token, clients, seconds));
            }
            report(results);
            bare.stop();
        }
    }

    private static Server bareJetty(byte[] body) throws Exception {
        var threads = new QueuedThreadPool();
        threads.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        var server = new Server(threads);
        var connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.getHeaders().put("Content-Type", "application/json");
                response.write(true, ByteBuffer.wrap(body), callback);
                return true;
            }
        });
        server.start();
        return server;
    }

    private static HttpRequest request(URI uri, String token) {
        return HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token).GET().build();
    }

    private static Result run(String target, URI uri, String token, int clients, int seconds) throws Exception {
        var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        var stop = new AtomicBoolean();
        var perClient = new ArrayList<List<Long>>();
        long start = System.nanoTime();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                var latencies = new ArrayList<Long>();
                perClient.add(latencies);
                pool.submit(() -> {
                    var request = request(uri, token);
                    while (!stop.get()) {
                        long t = System.nanoTime();
                        var response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
                        if (response.statusCode() != 200) {
                            throw new IllegalStateException(target + " answered " + response.statusCode() + ": "
                                    + new String(response.body(), StandardCharsets.UTF_8));
                        }
                        latencies.add((System.nanoTime() - t) / 1000);
                    }
                    return null;
                });
            }
            Thread.sleep(Duration.ofSeconds(seconds));
            stop.set(true);
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        long[] all = perClient.stream().flatMap(List::stream).mapToLong(Long::longValue).toArray();
        Arrays.sort(all);
        var result = new Result(target, all.length, elapsed, all[all.length / 2], all[(int) (all.length * 0.99)]);
        System.out.printf("  %-14s %9.0f req/s  p50 %6.2f ms  p99 %6.2f ms%n", target, result.rps(),
                result.p50Micros() / 1000.0, result.p99Micros() / 1000.0);
        return result;
    }

    private static void report(List<Result> results) {
        var bare = results.stream().filter(r -> r.target().equals("bare jetty")).toList();
        var hearth = results.stream().filter(r -> r.target().equals("hearth")).toList();
        double bareRps = median(bare.stream().mapToDouble(Result::rps).toArray());
        double hearthRps = median(hearth.stream().mapToDouble(Result::rps).toArray());
        double bareP50 = median(bare.stream().mapToDouble(Result::p50Micros).toArray()) / 1000;
        double hearthP50 = median(hearth.stream().mapToDouble(Result::p50Micros).toArray()) / 1000;
        double bareP99 = median(bare.stream().mapToDouble(Result::p99Micros).toArray()) / 1000;
        double hearthP99 = median(hearth.stream().mapToDouble(Result::p99Micros).toArray()) / 1000;
        System.out.println();
        System.out.println("| target | req/s | p50 ms | p99 ms |");
        System.out.println("|---|---|---|---|");
        System.out.printf("| bare Jetty handler | %.0f | %.2f | %.2f |%n", bareRps, bareP50, bareP99);
        System.out.printf("| hearth GET /v1/workspaces/{ws} | %.0f | %.2f | %.2f |%n", hearthRps, hearthP50, hearthP99);
        System.out.printf("| ratio hearth / bare | %.2f | %.2f | %.2f |%n", hearthRps / bareRps, hearthP50 / bareP50,
                hearthP99 / bareP99);
    }

    private static double median(double[] values) {
        Arrays.sort(values);
        return values[values.length / 2];
    }
}
