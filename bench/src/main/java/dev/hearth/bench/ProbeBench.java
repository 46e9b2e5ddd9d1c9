package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.bench.ProbeCases.Probe;
import dev.hearth.bench.RawHttp.Answer;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.databases.DatabaseSettings;
import dev.hearth.server.http.Route;
import dev.hearth.server.router.RouterSettings;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A careless or hostile client against every route of the route table: malformed and 5000-deep
 * JSON, wrong media types, wrong types in each real field, huge strings and headers, bodies where
 * none belongs, bad percent-encoding in path segments, no or bad tokens, with real ids (a workspace,
 * a key principal, a variable, an invitation made first) and made-up ones. No answer may be a 5xx,
 * every error must be the envelope with X-Request-Id, and none may take over 2 s.
 *
 * <p>The routes are the server's own table ({@link HearthServer#routes()}), so a new route is probed
 * without a change here. That table lives only in the process that built it, so this harness runs
 * the server inside its own JVM, as ApiBench does, not in a separate one ({@link ServedHearth}), and
 * probes it over loopback HTTP all the same; the server is built as {@code hearth serve} builds it,
 * with its own data directory and free ports (router, pooler) so that it runs beside another server.
 * Rate limits are raised: a 429 would hide what the route itself answers. Arguments: {@code [parallel=8]}.
 */
public final class ProbeBench {
    /** The id no resource has: 27 characters of [0-9a-z], like a real one. */
    static final String MADE_UP = "0000000000000000000000000zz";

    record Fixture(Map<String, String> ids, Supplier<String> admin, Supplier<String> viewer) {
    }

    public static void main(String[] args) throws Exception {
        int parallel = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        // PostgreSQL's OS user must traverse to the data directory, or databases answer 503 to everything
        Path dataDir = Files.createTempDirectory("hearth-probe",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x"))).resolve("data");
        try (var hearth = HearthServer.start(config(dataDir))) {
            run(hearth, dataDir, parallel, true).print();
        } finally {
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }

    /**
     * Probes the server: in full, every route of its table with every generic bad case and wrong
     * values in each field it finds, then the fuzz of every operation of its served OpenAPI
     * document; the short form (the test suite's) that fuzz alone, with fewer cases. Every answer
     * is judged against the document as well.
     */
    static ProbeTally run(HearthServer hearth, Path dataDir, int parallel, boolean full) {
        var admin = new HearthClient(hearth.baseUrl(), KeyFileTokens.read(dataDir.resolve("admin-key.json")));
        var fixture = fixture(admin, KeyFileTokens.read(dataDir.resolve("admin-key.json")));
        var tally = new ProbeTally();
        var doc = admin.get("/openapi.json");
        tally.documentedBy(new Documented(doc));
        int port = URI.create(hearth.baseUrl()).getPort();
        long start = System.nanoTime();
        if (full) {
            var routes = hearth.routes().routes();
            var words = FieldProbe.dictionary(Path.of("docs/api.md"));
            System.out.printf("probing %d routes of %s (real ids: %s; %d candidate field names)%n", routes.size(),
                    hearth.baseUrl(), fixture.ids().keySet(), words.size());
            var fields = probeAll(routes, fixture, words, probe -> send(port, probe, fixture, tally), parallel);
            System.out.println("fields given wrong values, as the server named them:");
            fields.forEach((route, names) -> System.out.println("  " + route + ": " + String.join(", ", names)));
        }
        var cases = OpenApiCases.all(doc, fixture.ids(), full);
        System.out.printf("fuzzing the %d operations of the served OpenAPI document: %d requests%n",
                doc.path("paths").properties().stream().mapToLong(p -> p.getValue().properties().stream()
                        .filter(op -> !op.getKey().equals("parameters")).count()).sum(), cases.size());
        // In order, on one thread: an operation's valid request comes after its bad ones, deletes last.
        cases.forEach(probe -> send(port, probe, fixture, tally));
        System.out.printf("%nprobed in %.0f s; %s%n", (System.nanoTime() - start) / 1e9, census(admin));
        return tally;
    }

    static Config config(Path dataDir) {
        var config = Config.defaults(dataDir).withPort(0)
                .withRouter(new RouterSettings("127.0.0.1", 0, "localhost", Optional.empty()))
                .withDatabases(new DatabaseSettings("127.0.0.1", "127.0.0.1", 17400, 17499, 0));
        return config.withLimits(config.limits().withRequests(1_000_000, 10_000_000).withAuthFailures(1_000_000));
    }

    /** What the probes aim at: resources of each kind the admin can make without starting a sandbox. */
    private static Fixture fixture(HearthClient admin, KeyFileTokens adminTokens) {
        var ids = new HashMap<String, String>();
        var operations = new ArrayList<JsonNode>();
        JsonNode ws = admin.create("/workspaces", Map.of("name", "probe"));
        String workspace = ws.path("workspace").path("id").asText();
        ids.put("ws", workspace);
        JsonNode key = admin.create("/workspaces/" + workspace + "/access", Map.of("name", "probe-key", "role", "editor"));
        ids.put("principal", key.path("access").path("principal").path("id").asText());
        JsonNode viewer = admin.create("/workspaces/" + workspace + "/access",
                Map.of("name", "probe-viewer", "role", "viewer"));
        var viewerTokens = new KeyFileTokens(viewer.path("key_file"));
        JsonNode variable = admin.create("/workspaces/" + workspace + "/variables", Map.of("name", "probe-var",
                "value", "v"));
        ids.put("var", variable.path("variable").path("id").asText());
        JsonNode invitation = admin.create("/workspaces/" + workspace + "/invitations",
                Map.of("email", "probe@example.com", "role", "viewer"));
        ids.put("inv", invitation.path("invitation").path("id").asText());
        for (JsonNode answer : List.of(ws, key, viewer, variable, invitation)) {
            answer.path("operations").forEach(operations::add);
        }
        operations.stream().findFirst().ifPresent(op -> ids.put("op", op.asText()));
        admin.get("/workspaces/" + workspace + "/images").path("images").forEach(image ->
                ids.putIfAbsent("img", image.path("id").asText()));
        return new Fixture(Map.copyOf(ids), () -> adminTokens.token(admin).orElseThrow(),
                () -> viewerTokens.token(admin).orElseThrow());
    }

    /**
     * Each route on its own virtual thread, at most {@code parallel} at once; one route's probes in
     * order. Returns the fields found per route.
     */
    private static Map<String, List<String>> probeAll(List<Route> routes, Fixture fixture, List<String> words,
                                                      Function<Probe, Optional<Answer>> send, int parallel) {
        var permits = new Semaphore(parallel);
        var fields = new ConcurrentSkipListMap<String, List<String>>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (var route : routes) {
                pool.submit(() -> {
                    permits.acquire();
                    try {
                        var found = probeRoute(route, fixture, words, send);
                        if (!found.isEmpty()) {
                            fields.put(route.method() + " " + route.template(), found);
                        }
                    } finally {
                        permits.release();
                    }
                    return null;
                });
            }
        }
        return fields;
    }

    private static List<String> probeRoute(Route route, Fixture fixture, List<String> words,
                                   Function<Probe, Optional<Answer>> send) {
        var params = ProbeCases.params(route.template());
        var real = new HashMap<String, String>();
        var madeUp = new HashMap<String, String>();
        params.forEach(p -> {
            real.put(p, fixture.ids().getOrDefault(p, MADE_UP));
            madeUp.put(p, MADE_UP);
        });
        var probes = new ArrayList<>(ProbeCases.of(route, real));
        if (!params.isEmpty()) {
            probes.addAll(ProbeCases.of(route, madeUp));
        }
        probes.forEach(send::apply);
        if (!fixture.ids().keySet().containsAll(params)) {
            return List.of(); // a made-up id is refused (404) before the body is read
        }
        return FieldProbe.run(route, "/v1" + ProbeCases.fill(route.template(), real), words, send);
    }

    /** One request on its own connection: a refused request may leave a connection unusable. */
    private static Optional<Answer> send(int port, Probe probe, Fixture fixture, ProbeTally tally) {
        var headers = new ArrayList<String>();
        probe.headers().forEach(h -> headers.add(h.replace("{admin-token}", fixture.admin().get())));
        switch (probe.auth()) {
            case ADMIN -> headers.add("Authorization: Bearer " + fixture.admin().get());
            case VIEWER -> headers.add("Authorization: Bearer " + fixture.viewer().get());
            case NONE -> { }
        }
        try (var http = new RawHttp("127.0.0.1", port)) {
            return tally.judge(probe, Optional.of(http.send(probe.method(), probe.target(), headers, probe.body())), null);
        } catch (IOException e) {
            return tally.judge(probe, Optional.empty(), e.getMessage());
        }
    }

    /** What the probes left behind: bad input should have created nothing that runs. */
    private static String census(HearthClient admin) {
        int workspaces = 0;
        int computers = 0;
        int databases = 0;
        for (JsonNode ws : admin.get("/workspaces?limit=100").path("workspaces")) {
            workspaces++;
            String id = ws.path("id").asText();
            computers += admin.get("/workspaces/" + id + "/computers?limit=100").path("computers").size();
            databases += admin.get("/workspaces/" + id + "/databases?limit=100").path("databases").size();
        }
        return String.format("left behind: %d workspaces (1 is the fixture's), %d computers, %d databases",
                workspaces, computers, databases);
    }
}
