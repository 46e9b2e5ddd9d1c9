package dev.hearth.server.openapi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;

/** {@code GET /openapi.json}: the document of every route, made once, on first ask (all routes are in by then). */
public final class OpenApiRoute {
    private OpenApiRoute() {
    }

    public static void register(RouteTable routes, String version) {
        var document = new Object() {
            private ObjectNode made;

            synchronized ObjectNode get() {
                if (made == null) {
                    made = OpenApiDocument.of(routes.routes(), version);
                }
                return made;
            }
        };
        routes.add("GET", "/openapi.json", Scope.anyone(), ex -> Reply.ok(document.get()))
                .summary("This API as an OpenAPI 3.1 document").answers(new Contract.Shape.Any());
    }
}
