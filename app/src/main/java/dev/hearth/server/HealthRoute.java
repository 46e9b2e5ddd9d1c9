package dev.hearth.server;

import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.util.LinkedHashMap;
import org.jdbi.v3.core.Jdbi;

/** {@code GET /health}: the server answers, with its version and whether its store answers too. */
final class HealthRoute {
    private HealthRoute() {
    }

    static void register(RouteTable routes, String version, Jdbi jdbi) {
        routes.add("GET", "/health", Scope.anyone(), ex -> Reply.ok(health(version, jdbi))).summary("Is the server up")
                .answers(Contract.fields("status", Contract.of(String.class), "version", Contract.of(String.class),
                        "store", Contract.of(String.class)));
    }

    private static Object health(String version, Jdbi jdbi) {
        var body = new LinkedHashMap<String, Object>();
        body.put("status", "ok");
        body.put("version", version);
        body.put("store", jdbi.withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one()) == 1
                ? "ok" : "unavailable");
        return body;
    }
}
