package dev.hearth.access;

import static dev.hearth.support.HearthServerExtension.assumeComputers;
import static dev.hearth.support.HearthServerExtension.assumeDatabases;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.hearth.api.Json;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.server.limits.Limits;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestKinds;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every route against every kind of caller. Each call gets a fresh workspace where admin@, editor@
 * and viewer@ hold their roles and a key principal "target" is a second admin; outsider@ has no role.
 */
@HearthServerTest(config = "withOperations")
class RoleMatrixTest {
    enum Who { ADMIN, EDITOR, VIEWER, OUTSIDER, NO_TOKEN, EXPIRED_TOKEN, REVOKED_KEY }

    enum Needs { ANYONE, SIGNED_IN, VIEWER, EDITOR, ADMIN }

    /** A fresh workspace for one call, and a principal, variable, invitation (to outsider@) and operation in it. */
    record Fixture(String ws, String target, String variable, String invitation, String operation, String computer) {
    }

    /** One route: what it needs, the request to make, and the status a permitted caller gets. */
    record Case(String method, String template, Needs needs, int success, Function<Fixture, String> path,
                Function<Fixture, Object> body, Function<Who, Integer> special) {
        Case(String method, String template, Needs needs, int success, Function<Fixture, String> path,
             Function<Fixture, Object> body) {
            this(method, template, needs, success, path, body, null);
        }
    }

    @Injected
    private TestServer server;
    private final Map<Who, HearthClient> clients = new LinkedHashMap<>();

    static UnaryOperator<Config> withOperations() {
        // Each of the ~700 calls makes its fixture as admin@: more than the default rate allows.
        return c -> c.withOperations(Duration.ofSeconds(2), TestKinds.all())
                .withLimits(Limits.DEFAULT.withRequests(10_000, 100_000));
    }

    @BeforeAll
    void start() throws Exception {
        clients.put(Who.ADMIN, server.emailUser("admin@example.com"));
        clients.put(Who.EDITOR, server.emailUser("editor@example.com"));
        clients.put(Who.VIEWER, server.emailUser("viewer@example.com"));
        clients.put(Who.OUTSIDER, server.emailUser("outsider@example.com"));
        clients.put(Who.NO_TOKEN, server.anonymous());
        server.clock.advance(Duration.ofMinutes(-20));
        clients.put(Who.EXPIRED_TOKEN, server.emailUser("editor@example.com"));
        server.clock.reset();
        var admin = clients.get(Who.ADMIN);
        String keys = TestServer.workspace(admin).path("id").asText();
        var keyFile = admin.create("/workspaces/" + keys + "/access", Map.of("name", "revoked", "role", "admin")).path("key_file");
        var revoked = server.keyPrincipal(keyFile);
        revoked.get("/me");
        admin.post("/workspaces/" + keys + "/access/" + keyFile.path("principal").asText() + "/revoke_key", Map.of());
        clients.put(Who.REVOKED_KEY, revoked);
    }

    @AfterAll
    void deleteComputers() {
        if (computerWorkspace != null) {
            var admin = clients.get(Who.ADMIN);
            admin.get("/workspaces/" + computerWorkspace + "/computers").path("computers")
                    .forEach(c -> admin.delete("/computers/" + c.path("id").asText()));
        }
    }

    private Fixture fixture() {
        var admin = clients.get(Who.ADMIN);
        String ws = TestServer.workspace(admin).path("id").asText();
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "editor@example.com", "role", "editor"));
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "viewer@example.com", "role", "viewer"));
        String target = admin.create("/workspaces/" + ws + "/access", Map.of("name", "target", "role", "admin"))
                .path("access").path("principal").path("id").asText();
        String variable = admin.create("/workspaces/" + ws + "/variables", Map.of("name", "v", "value", "secret"))
                .path("variable").path("id").asText();
        String invitation = admin.create("/workspaces/" + ws + "/invitations",
                Map.of("email", "outsider@example.com", "role", "viewer")).path("invitation").path("id").asText();
        String operation = server.server().operations().begin("test.sleep", ws, null,
                Json.mapper().createObjectNode().put("millis", 50)).id();
        return new Fixture(ws, target, variable, invitation, operation, "-");
    }

    /** A saved query made in the fixture's workspace for the one call. */
    private String savedQuery(Fixture f) {
        return clients.get(Who.ADMIN).create("/workspaces/" + f.ws() + "/queries",
                Map.of("name", TestServer.uniqueName("q"), "sql", "select 1")).path("query").path("id").asText();
    }

    private String computerWorkspace;

    /**
     * Computer routes share one workspace and one computer (sandboxes are not free); a permitted
     * DELETE removes it, so it is made again when missing.
     */
    private Fixture computerFixture() {
        var admin = clients.get(Who.ADMIN);
        if (computerWorkspace == null) {
            computerWorkspace = TestServer.workspace(admin).path("id").asText();
            admin.create("/workspaces/" + computerWorkspace + "/access", Map.of("email", "editor@example.com", "role", "editor"));
            admin.create("/workspaces/" + computerWorkspace + "/access", Map.of("email", "viewer@example.com", "role", "viewer"));
        }
        var existing = admin.get("/workspaces/" + computerWorkspace + "/computers").path("computers");
        String shared = null;
        for (var c : existing) {
            if (c.path("name").asText().equals("shared")) {
                shared = c.path("id").asText();
            } else {
                admin.delete("/computers/" + c.path("id").asText());
            }
        }
        if (shared == null) {
            shared = admin.create("/workspaces/" + computerWorkspace + "/computers",
                    Map.of("name", "shared", "image", "hearth/busybox", "command", List.of("sleep", "1000000")))
                    .path("computer").path("id").asText();
        }
        return new Fixture(computerWorkspace, "-", "-", "-", "-", shared);
    }

    private String databaseWorkspace;

    /** Database routes share one workspace and one database, made again when a DELETE removed it. */
    private Fixture databaseFixture() {
        var admin = clients.get(Who.ADMIN);
        if (databaseWorkspace == null) {
            databaseWorkspace = TestServer.workspace(admin).path("id").asText();
            admin.create("/workspaces/" + databaseWorkspace + "/access", Map.of("email", "editor@example.com", "role", "editor"));
            admin.create("/workspaces/" + databaseWorkspace + "/access", Map.of("email", "viewer@example.com", "role", "viewer"));
        }
        String shared = null;
        for (var d : admin.get("/workspaces/" + databaseWorkspace + "/databases").path("databases")) {
            if (d.path("name").asText().equals("shared")) {
                shared = d.path("id").asText();
            } else {
                admin.delete("/databases/" + d.path("id").asText());
            }
        }
        if (shared == null) {
            shared = admin.create("/workspaces/" + databaseWorkspace + "/databases", Map.of("name", "shared"))
                    .path("database").path("id").asText();
        }
        return new Fixture(databaseWorkspace, "-", "-", "-", "-", shared);
    }

    /** A new ready checkpoint of the fixture's database, made by the admin. */
    private String readyDatabaseCheckpoint(Fixture f) {
        var admin = clients.get(Who.ADMIN);
        var made = admin.create("/databases/" + f.computer() + "/checkpoints", Map.of("name", TestServer.uniqueName("k")));
        String op = made.path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        return made.path("checkpoint").path("id").asText();
    }

    /** A new PostgreSQL role in the fixture's database, made by the admin: the route to it. */
    private String databaseRole(Fixture f) {
        String role = clients.get(Who.ADMIN).create("/databases/" + f.computer() + "/roles",
                Map.of("name", TestServer.uniqueName("r"))).path("role").path("name").asText();
        return "/databases/" + f.computer() + "/roles/" + role;
    }

    /** A new file in the fixture's computer, made by the admin: the route to it. */
    private String file(Fixture f) {
        String path = "/computers/" + f.computer() + "/files?path=/tmp/" + TestServer.uniqueName("f");
        assertEquals(200, clients.get(Who.ADMIN).send("PUT", path, "x", Map.of()).status());
        return path;
    }

    /** A new process in the fixture's computer, started by the admin, that takes input: its route. */
    private String process(Fixture f) {
        var started = clients.get(Who.ADMIN).post("/computers/" + f.computer() + "/processes",
                Map.of("command", List.of("cat"), "stdin", true));
        return "/computers/" + f.computer() + "/processes/" + started.path("process").path("pid").asInt();
    }

    /** A new ready checkpoint of the fixture's computer, made by the admin. */
    private String readyCheckpoint(Fixture f) {
        var admin = clients.get(Who.ADMIN);
        var made = admin.send("POST", "/computers/" + f.computer() + "/checkpoints", Map.of("name", TestServer.uniqueName("k")),
                Map.of("Idempotency-Key", UUID.randomUUID().toString())).body();
        String op = made.path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        return made.path("checkpoint").path("id").asText();
    }

    /** A kept checkpoint of the shared computer, as its workspace's route names it. */
    private String keptCheckpoint() {
        assumeComputers();
        var f = computerFixture();
        var admin = clients.get(Who.ADMIN);
        var made = admin.send("POST", "/computers/" + f.computer() + "/checkpoints", Map.of("keep", true),
                Map.of("Idempotency-Key", UUID.randomUUID().toString())).body();
        String op = made.path("operations").get(0).asText();
        assertEquals("succeeded", admin.get("/operations/" + op + "?wait=60").path("operation").path("state").asText());
        return "/workspaces/" + f.ws() + "/checkpoints/" + made.path("checkpoint").path("id").asText();
    }

    /** An API key the admin made in the fixture's workspace. */
    private String apiKey(Fixture f) {
        return "/workspaces/" + f.ws() + "/api_keys/" + clients.get(Who.ADMIN).create("/workspaces/" + f.ws()
                + "/api_keys", Map.of("name", TestServer.uniqueName("k"))).path("api_key").path("id").asText();
    }

    /** Revoking another's key is an admin's; a viewer or editor may revoke only their own. */
    private static Integer adminsToRevoke(Who who) {
        return switch (who) {
            case ADMIN -> 200;
            case EDITOR, VIEWER -> 403;
            case OUTSIDER -> 404;
            default -> 401;
        };
    }

    private List<Case> cases() {
        Function<Fixture, Object> none = f -> null;
        Function<Fixture, Object> empty = f -> Map.of();
        Function<Fixture, String> ws = f -> "/workspaces/" + f.ws();
        Function<Fixture, String> target = f -> "/workspaces/" + f.ws() + "/access/" + f.target();
        return List.of(
                new Case("GET", "/health", Needs.ANYONE, 200, f -> "/health", none),
                new Case("GET", "/openapi.json", Needs.ANYONE, 200, f -> "/openapi.json", none),
                new Case("GET", "/.well-known/jwks.json", Needs.ANYONE, 200, f -> "/.well-known/jwks.json", none),
                new Case("POST", "/auth/token", Needs.ANYONE, 400, f -> "/auth/token", empty),
                new Case("POST", "/auth/email/start", Needs.ANYONE, 400, f -> "/auth/email/start", empty),
                new Case("POST", "/auth/email/verify", Needs.ANYONE, 400, f -> "/auth/email/verify", empty),
                new Case("POST", "/auth/refresh", Needs.ANYONE, 400, f -> "/auth/refresh", empty),
                new Case("POST", "/auth/logout", Needs.ANYONE, 400, f -> "/auth/logout", empty),
                new Case("POST", "/auth/console", Needs.ANYONE, 400, f -> "/auth/console", empty),
                new Case("POST", "/auth/console/logout", Needs.ANYONE, 200, f -> "/auth/console/logout", none),
                new Case("GET", "/me", Needs.SIGNED_IN, 200, f -> "/me", none),
                // The operator is the admin principal of first start, none of these callers (OperatorTest).
                new Case("GET", "/nodes", Needs.SIGNED_IN, 200, f -> "/nodes", none, who -> switch (who) {
                    case NO_TOKEN, EXPIRED_TOKEN, REVOKED_KEY -> 401;
                    default -> 403;
                }),
                new Case("GET", "/workspaces", Needs.SIGNED_IN, 200, f -> "/workspaces", none),
                new Case("POST", "/workspaces", Needs.SIGNED_IN, 201, f -> "/workspaces",
                        f -> Map.of("name", TestServer.uniqueName("m"))),
                new Case("GET", "/workspaces/{ws}", Needs.VIEWER, 200, ws, none),
                new Case("PATCH", "/workspaces/{ws}", Needs.ADMIN, 200, ws, f -> Map.of("name", TestServer.uniqueName("r"))),
                // A workspace holding resources cannot be deleted: empty it first.
                new Case("DELETE", "/workspaces/{ws}", Needs.ADMIN, 200, f -> {
                    clients.get(Who.ADMIN).delete("/variables/" + f.variable());
                    return ws.apply(f);
                }, none),
                new Case("GET", "/workspaces/{ws}/access", Needs.VIEWER, 200, f -> ws.apply(f) + "/access", none),
                new Case("POST", "/workspaces/{ws}/access", Needs.ADMIN, 201, f -> ws.apply(f) + "/access",
                        f -> Map.of("email", "new-" + UUID.randomUUID() + "@example.com", "role", "viewer")),
                new Case("GET", "/workspaces/{ws}/access/{principal}", Needs.VIEWER, 200, target, none),
                new Case("PATCH", "/workspaces/{ws}/access/{principal}", Needs.ADMIN, 200, target,
                        f -> Map.of("role", "editor")),
                new Case("DELETE", "/workspaces/{ws}/access/{principal}", Needs.ADMIN, 200, target, none),
                new Case("POST", "/workspaces/{ws}/access/{principal}/rotate_key", Needs.ADMIN, 200,
                        f -> target.apply(f) + "/rotate_key", empty),
                new Case("POST", "/workspaces/{ws}/access/{principal}/revoke_key", Needs.ADMIN, 200,
                        f -> target.apply(f) + "/revoke_key", empty),
                new Case("POST", "/workspaces/{ws}/variables", Needs.EDITOR, 201, f -> ws.apply(f) + "/variables",
                        f -> Map.of("name", TestServer.uniqueName("v"), "value", "x")),
                new Case("GET", "/workspaces/{ws}/variables", Needs.VIEWER, 200, f -> ws.apply(f) + "/variables", none),
                new Case("GET", "/variables/{var}", Needs.VIEWER, 200, f -> "/variables/" + f.variable(), none),
                new Case("PATCH", "/variables/{var}", Needs.EDITOR, 200, f -> "/variables/" + f.variable(),
                        f -> Map.of("value", "y")),
                new Case("DELETE", "/variables/{var}", Needs.EDITOR, 200, f -> "/variables/" + f.variable(), none),
                new Case("POST", "/workspaces/{ws}/queries", Needs.EDITOR, 201, f -> ws.apply(f) + "/queries",
                        f -> Map.of("name", TestServer.uniqueName("q"), "sql", "select 1")),
                new Case("GET", "/workspaces/{ws}/queries", Needs.VIEWER, 200, f -> ws.apply(f) + "/queries", none),
                new Case("GET", "/queries/{qry}", Needs.VIEWER, 200, f -> "/queries/" + savedQuery(f), none),
                new Case("PATCH", "/queries/{qry}", Needs.EDITOR, 200, f -> "/queries/" + savedQuery(f),
                        f -> Map.of("sql", "select 2")),
                new Case("DELETE", "/queries/{qry}", Needs.EDITOR, 200, f -> "/queries/" + savedQuery(f), none),
                new Case("POST", "/workspaces/{ws}/invitations", Needs.ADMIN, 201, f -> ws.apply(f) + "/invitations",
                        f -> Map.of("email", "inv-" + UUID.randomUUID() + "@example.com", "role", "viewer")),
                new Case("GET", "/workspaces/{ws}/invitations", Needs.ADMIN, 200, f -> ws.apply(f) + "/invitations", none),
                new Case("GET", "/invitations/{inv}", Needs.ADMIN, 200, f -> "/invitations/" + f.invitation(), none),
                new Case("POST", "/invitations/{inv}/resend", Needs.ADMIN, 200,
                        f -> "/invitations/" + f.invitation() + "/resend", empty),
                new Case("DELETE", "/invitations/{inv}", Needs.ADMIN, 200, f -> "/invitations/" + f.invitation(), none),
                // Only the invitee (outsider@) may accept; to anyone else the invitation does not exist.
                new Case("POST", "/invitations/{inv}/accept", Needs.SIGNED_IN, 200,
                        f -> "/invitations/" + f.invitation() + "/accept", empty,
                        who -> switch (who) {
                            case OUTSIDER -> 200;
                            case ADMIN, EDITOR, VIEWER -> 404;
                            default -> 401;
                        }),
                new Case("GET", "/workspaces/{ws}/operations", Needs.VIEWER, 200, f -> ws.apply(f) + "/operations", none),
                new Case("GET", "/operations/{op}", Needs.VIEWER, 200, f -> "/operations/" + f.operation(), none),
                new Case("POST", "/workspaces/{ws}/computers", Needs.EDITOR, 201, f -> ws.apply(f) + "/computers",
                        f -> Map.of("name", TestServer.uniqueName("c"), "image", "hearth/busybox")),
                new Case("POST", "/workspaces/{ws}/api_keys", Needs.VIEWER, 201, f -> ws.apply(f) + "/api_keys",
                        f -> Map.of("name", TestServer.uniqueName("k"))),
                new Case("GET", "/workspaces/{ws}/api_keys", Needs.VIEWER, 200, f -> ws.apply(f) + "/api_keys", none),
                new Case("GET", "/workspaces/{ws}/api_keys/{apikey}", Needs.VIEWER, 200, this::apiKey, none),
                new Case("DELETE", "/workspaces/{ws}/api_keys/{apikey}", Needs.VIEWER, 200, this::apiKey, none,
                        RoleMatrixTest::adminsToRevoke),
                new Case("GET", "/workspaces/{ws}/checkpoints", Needs.VIEWER, 200, f -> ws.apply(f) + "/checkpoints", none),
                new Case("GET", "/workspaces/{ws}/checkpoints/{chk}", Needs.VIEWER, 200, f -> keptCheckpoint(), none),
                new Case("DELETE", "/workspaces/{ws}/checkpoints/{chk}", Needs.EDITOR, 202, f -> keptCheckpoint(), none),
                new Case("GET", "/workspaces/{ws}/computers", Needs.VIEWER, 200, f -> ws.apply(f) + "/computers", none),
                new Case("GET", "/computers/{cmp}", Needs.VIEWER, 200, f -> "/computers/" + f.computer(), none),
                new Case("PATCH", "/computers/{cmp}", Needs.EDITOR, 200, f -> "/computers/" + f.computer(),
                        f -> Map.of("protected", false)),
                new Case("DELETE", "/computers/{cmp}", Needs.EDITOR, 200, f -> "/computers/" + f.computer(), none),
                // A permitted caller without a WebSocket upgrade is told to upgrade (400).
                new Case("GET", "/computers/{cmp}/exec", Needs.EDITOR, 400, f -> "/computers/" + f.computer() + "/exec", none),
                new Case("POST", "/computers/{cmp}/exec", Needs.EDITOR, 200, f -> "/computers/" + f.computer() + "/exec",
                        f -> Map.of("command", List.of("true"))),
                // Sleep answers 200 with the sleeping computer; exec and wake bring it back.
                new Case("GET", "/computers/{cmp}/files", Needs.VIEWER, 200,
                        f -> "/computers/" + f.computer() + "/files?path=/etc/passwd", none),
                new Case("PUT", "/computers/{cmp}/files", Needs.EDITOR, 200,
                        f -> "/computers/" + f.computer() + "/files?path=/tmp/" + TestServer.uniqueName("f"), f -> "x"),
                new Case("DELETE", "/computers/{cmp}/files", Needs.EDITOR, 200, f -> file(f), none),
                new Case("GET", "/computers/{cmp}/files/info", Needs.VIEWER, 200,
                        f -> "/computers/" + f.computer() + "/files/info?path=/etc", none),
                new Case("GET", "/computers/{cmp}/files/list", Needs.VIEWER, 200,
                        f -> "/computers/" + f.computer() + "/files/list?path=/etc", none),
                new Case("POST", "/computers/{cmp}/files/move", Needs.EDITOR, 200,
                        f -> "/computers/" + f.computer() + "/files/move",
                        f -> Map.of("from", file(f).replaceFirst(".*path=", ""), "to", "/tmp/" + TestServer.uniqueName("m"))),
                new Case("POST", "/computers/{cmp}/files/mkdir", Needs.EDITOR, 200,
                        f -> "/computers/" + f.computer() + "/files/mkdir", f -> Map.of("path", "/tmp/" + TestServer.uniqueName("d"))),
                // A watch lasts until its client hangs up: one of a directory that is not there ends at once.
                new Case("GET", "/computers/{cmp}/files/watch", Needs.VIEWER, 404,
                        f -> "/computers/" + f.computer() + "/files/watch?path=/no/such/dir", none),
                new Case("GET", "/computers/{cmp}/files/archive", Needs.VIEWER, 200,
                        f -> "/computers/" + f.computer() + "/files/archive?path=/etc", none),
                // An empty body is an empty tar: nothing to unpack.
                new Case("PUT", "/computers/{cmp}/files/archive", Needs.EDITOR, 200,
                        f -> "/computers/" + f.computer() + "/files/archive?path=/tmp/" + TestServer.uniqueName("a"), f -> ""),
                new Case("POST", "/computers/{cmp}/processes", Needs.EDITOR, 201,
                        f -> "/computers/" + f.computer() + "/processes", f -> Map.of("command", List.of("true"))),
                new Case("GET", "/computers/{cmp}/processes", Needs.VIEWER, 200,
                        f -> "/computers/" + f.computer() + "/processes", none),
                new Case("GET", "/computers/{cmp}/processes/{pid}", Needs.VIEWER, 200, this::process, none),
                new Case("GET", "/computers/{cmp}/processes/{pid}/output", Needs.VIEWER, 200,
                        f -> process(f) + "/output", none),
                new Case("POST", "/computers/{cmp}/processes/{pid}/signal", Needs.EDITOR, 200,
                        f -> process(f) + "/signal", f -> Map.of("signal", "TERM")),
                // A process without a terminal cannot be resized: a permitted caller is told so.
                new Case("POST", "/computers/{cmp}/processes/{pid}/resize", Needs.EDITOR, 409,
                        f -> process(f) + "/resize", f -> Map.of("cols", 100, "rows", 30)),
                new Case("POST", "/computers/{cmp}/processes/{pid}/stdin", Needs.EDITOR, 200,
                        f -> process(f) + "/stdin", f -> "x"),
                new Case("GET", "/computers/{cmp}/logs", Needs.VIEWER, 200, f -> "/computers/" + f.computer() + "/logs",
                        none),
                new Case("GET", "/computers/{cmp}/metrics", Needs.VIEWER, 200,
                        f -> "/computers/" + f.computer() + "/metrics", none),
                new Case("GET", "/computers/{cmp}/metrics/history", Needs.VIEWER, 200,
                        f -> "/computers/" + f.computer() + "/metrics/history", none),
                new Case("POST", "/computers/{cmp}/sleep", Needs.EDITOR, 200, f -> "/computers/" + f.computer() + "/sleep",
                        empty),
                new Case("POST", "/computers/{cmp}/wake", Needs.EDITOR, 200, f -> "/computers/" + f.computer() + "/wake",
                        none),
                new Case("POST", "/computers/{cmp}/checkpoints", Needs.EDITOR, 202,
                        f -> "/computers/" + f.computer() + "/checkpoints", f -> Map.of("name", TestServer.uniqueName("k"))),
                new Case("GET", "/computers/{cmp}/checkpoints", Needs.VIEWER, 200,
                        f -> "/computers/" + f.computer() + "/checkpoints", none),
                new Case("GET", "/computers/{cmp}/checkpoints/{chk}", Needs.VIEWER, 200,
                        f -> "/computers/" + f.computer() + "/checkpoints/" + readyCheckpoint(f), none),
                new Case("DELETE", "/computers/{cmp}/checkpoints/{chk}", Needs.EDITOR, 202,
                        f -> "/computers/" + f.computer() + "/checkpoints/" + readyCheckpoint(f), none),
                new Case("POST", "/computers/{cmp}/restore", Needs.EDITOR, 200, f -> "/computers/" + f.computer() + "/restore",
                        f -> Map.of("checkpoint", readyCheckpoint(f))),
                // Database cases: the fixture's "computer" is the shared database.
                new Case("POST", "/workspaces/{ws}/databases", Needs.EDITOR, 201, f -> ws.apply(f) + "/databases",
                        f -> Map.of("name", TestServer.uniqueName("d"))),
                new Case("GET", "/workspaces/{ws}/databases", Needs.VIEWER, 200, f -> ws.apply(f) + "/databases", none),
                new Case("GET", "/databases/{db}", Needs.VIEWER, 200, f -> "/databases/" + f.computer(), none),
                new Case("PATCH", "/databases/{db}", Needs.EDITOR, 200, f -> "/databases/" + f.computer(),
                        f -> Map.of("auto_sleep_seconds", 600)),
                new Case("DELETE", "/databases/{db}", Needs.EDITOR, 200, f -> "/databases/" + f.computer(), none),
                new Case("GET", "/databases/{db}/connection", Needs.VIEWER, 200,
                        f -> "/databases/" + f.computer() + "/connection", none),
                new Case("GET", "/databases/{db}/metrics", Needs.VIEWER, 200,
                        f -> "/databases/" + f.computer() + "/metrics", none),
                new Case("GET", "/databases/{db}/metrics/history", Needs.VIEWER, 200,
                        f -> "/databases/" + f.computer() + "/metrics/history", none),
                new Case("GET", "/databases/{db}/history", Needs.VIEWER, 200,
                        f -> "/databases/" + f.computer() + "/history", none),
                new Case("GET", "/databases/{db}/insights", Needs.VIEWER, 200,
                        f -> "/databases/" + f.computer() + "/insights", none),
                new Case("POST", "/databases/{db}/query", Needs.VIEWER, 200, f -> "/databases/" + f.computer() + "/query",
                        f -> Map.of("sql", "select 1")),
                new Case("POST", "/databases/{db}/reset_credentials", Needs.EDITOR, 200,
                        f -> "/databases/" + f.computer() + "/reset_credentials", none),
                new Case("POST", "/databases/{db}/sleep", Needs.EDITOR, 200, f -> "/databases/" + f.computer() + "/sleep",
                        empty),
                // A moment in the future: refused after the role is checked, so no restore runs here.
                new Case("POST", "/databases/{db}/restore", Needs.EDITOR, 400, f -> "/databases/" + f.computer() + "/restore",
                        f -> Map.of("at", "2999-01-01T00:00:00Z")),
                new Case("POST", "/databases/{db}/wake", Needs.EDITOR, 200, f -> "/databases/" + f.computer() + "/wake",
                        empty),
                // As for a restore: a moment in the future, and a time travel that is not there.
                new Case("POST", "/databases/{db}/time_travels", Needs.EDITOR, 400,
                        f -> "/databases/" + f.computer() + "/time_travels", f -> Map.of("at", "2999-01-01T00:00:00Z")),
                new Case("GET", "/databases/{db}/time_travels", Needs.VIEWER, 200,
                        f -> "/databases/" + f.computer() + "/time_travels", none),
                new Case("DELETE", "/databases/{db}/time_travels/{id}", Needs.EDITOR, 404,
                        f -> "/databases/" + f.computer() + "/time_travels/nothing", none),
                new Case("GET", "/databases/{db}/roles", Needs.VIEWER, 200, f -> "/databases/" + f.computer() + "/roles", none),
                new Case("POST", "/databases/{db}/roles", Needs.EDITOR, 201, f -> "/databases/" + f.computer() + "/roles",
                        f -> Map.of("name", TestServer.uniqueName("r"))),
                new Case("POST", "/databases/{db}/roles/{role}/reset_password", Needs.EDITOR, 200,
                        f -> databaseRole(f) + "/reset_password", none),
                new Case("DELETE", "/databases/{db}/roles/{role}", Needs.EDITOR, 200, this::databaseRole, none),
                new Case("GET", "/databases/{db}/pg_databases", Needs.VIEWER, 200,
                        f -> "/databases/" + f.computer() + "/pg_databases", none),
                new Case("POST", "/databases/{db}/pg_databases", Needs.EDITOR, 201,
                        f -> "/databases/" + f.computer() + "/pg_databases", f -> Map.of("name", TestServer.uniqueName("d"))),
                new Case("DELETE", "/databases/{db}/pg_databases/{name}", Needs.EDITOR, 200, f -> "/databases/" + f.computer()
                        + "/pg_databases/" + clients.get(Who.ADMIN).create("/databases/" + f.computer() + "/pg_databases",
                        Map.of("name", TestServer.uniqueName("d"))).path("pg_database").path("name").asText(), none),
                new Case("POST", "/databases/{db}/checkpoints", Needs.EDITOR, 202,
                        f -> "/databases/" + f.computer() + "/checkpoints", f -> Map.of("name", TestServer.uniqueName("k"))),
                new Case("GET", "/databases/{db}/checkpoints", Needs.VIEWER, 200,
                        f -> "/databases/" + f.computer() + "/checkpoints", none),
                new Case("GET", "/databases/{db}/checkpoints/{chk}", Needs.VIEWER, 200,
                        f -> "/databases/" + f.computer() + "/checkpoints/" + readyDatabaseCheckpoint(f), none),
                new Case("DELETE", "/databases/{db}/checkpoints/{chk}", Needs.EDITOR, 202,
                        f -> "/databases/" + f.computer() + "/checkpoints/" + readyDatabaseCheckpoint(f), none),
                new Case("POST", "/workspaces/{ws}/images", Needs.EDITOR, 202, f -> ws.apply(f) + "/images",
                        f -> Map.of("reference", TestImages.MISSING_LAYOUT + ":" + UUID.randomUUID())),
                new Case("GET", "/workspaces/{ws}/images", Needs.VIEWER, 200, f -> ws.apply(f) + "/images", none),
                new Case("DELETE", "/workspaces/{ws}/images/{img}", Needs.EDITOR, 200, f -> {
                    String ref = TestImages.MISSING_LAYOUT + ":" + UUID.randomUUID();
                    var img = clients.get(Who.ADMIN).create(ws.apply(f) + "/images", Map.of("reference", ref)).path("image");
                    return ws.apply(f) + "/images/" + img.path("id").asText();
                }, none));
    }

    @Test
    void theMatrixCoversEveryRoute() {
        var served = new TreeSet<String>();
        server.server().routes().routes().forEach(r -> served.add(r.method() + " " + r.template()));
        var covered = new TreeSet<String>();
        cases().forEach(c -> covered.add(c.method() + " " + c.template()));
        assertEquals(served, covered, "every route must join the role matrix");
    }

    @TestFactory
    Stream<DynamicTest> everyRouteForEveryCaller() {
        var tests = new ArrayList<DynamicTest>();
        for (var c : cases()) {
            for (var who : Who.values()) {
                tests.add(DynamicTest.dynamicTest(c.method() + " " + c.template() + " as " + who, () -> check(c, who)));
            }
        }
        return tests.stream();
    }

    private void check(Case c, Who who) {
        boolean computers = c.template().contains("computers") || c.template().contains("{cmp}");
        if (computers) {
            assumeComputers();
        }
        boolean databases = c.template().contains("databases") || c.template().contains("{db}");
        if (databases) {
            assumeDatabases();
        }
        var fixture = c.needs() == Needs.ANYONE ? new Fixture("-", "-", "-", "-", "-", "-")
                : computers ? computerFixture() : databases ? databaseFixture() : fixture();
        var headers = c.method().equals("GET") ? Map.<String, String>of()
                : Map.of("Idempotency-Key", UUID.randomUUID().toString());
        var response = clients.get(who).send(c.method(), c.path().apply(fixture), c.body().apply(fixture), headers);
        assertEquals(expected(c, who), response.status(), () -> response.body().toString());
    }

    private static int expected(Case c, Who who) {
        if (c.special() != null) {
            return c.special().apply(who);
        }
        if (c.needs() == Needs.ANYONE) {
            return c.success();
        }
        return switch (who) {
            case NO_TOKEN, EXPIRED_TOKEN, REVOKED_KEY -> 401;
            case OUTSIDER -> c.needs() == Needs.SIGNED_IN ? c.success() : 404;
            case ADMIN -> c.success();
            case EDITOR -> c.needs().compareTo(Needs.EDITOR) <= 0 ? c.success() : 403;
            case VIEWER -> c.needs().compareTo(Needs.VIEWER) <= 0 ? c.success() : 403;
        };
    }
}
