package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * E2B's control plane: the routes its SDK calls, under {@code prefix} on the API's listener
 * ({@code /e2b}: {@code E2B_API_URL=http://HOST:7300/e2b}) or at the root of {@code api.DOMAIN} on the
 * router. Every failure answers E2B's {@code {"code": STATUS, "message": ...}}; what Hearth does not
 * offer (template builds, volumes, secrets, MCP) answers 501 saying so.
 */
final class E2bApi extends Handler.Abstract {
    private static final Logger LOG = LoggerFactory.getLogger(E2bApi.class);
    private static final Pattern ONE = Pattern.compile("/(?:v2/)?sandboxes/([^/]+)(/[a-z]+)?");
    private static final Pattern NOT_OFFERED = Pattern.compile("/(v\\d/)?(templates|volumes|volumecontent|secrets|mcp)"
            + "(/.*)?|/(v2/)?sandboxes/[^/]+/(logs|mcp)");
    private static final int MAX_BODY = 1 << 20;

    private final String prefix;
    private final E2bAuth auth;
    private final Sandboxes sandboxes;
    private final SandboxLife life;
    private final Snapshots snapshots;
    private final SandboxList list;

    /** What the control plane answers with: sandboxes, their list, their lives and their snapshots. */
    record Parts(Sandboxes sandboxes, SandboxList list, SandboxLife life, Snapshots snapshots) {
    }

    E2bApi(String prefix, E2bAuth auth, Parts parts) {
        this.prefix = prefix;
        this.auth = auth;
        this.sandboxes = parts.sandboxes();
        this.list = parts.list();
        this.life = parts.life();
        this.snapshots = parts.snapshots();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = request.getHttpURI().getDecodedPath();
        if (!prefix.isEmpty() && !(path.equals(prefix) || path.startsWith(prefix + "/"))) {
            return false;
        }
        String route = path.substring(prefix.length());
        try {
            var key = auth.key(request.getHeaders().get("X-API-KEY"), request.getHeaders().get(HttpHeader.AUTHORIZATION));
            serve(request, response, callback, request.getMethod(), route, key);
        } catch (E2bException e) {
            E2bReply.error(response, callback, e);
        } catch (RuntimeException e) {
            String id = Ids.next();
            LOG.error("E2B request {} {} {} failed", id, request.getMethod(), path, e);
            E2bReply.error(response, callback, 500, "internal error; quote request id " + id + " when reporting it");
        }
        return true;
    }

    private void serve(Request request, Response response, Callback callback, String method, String route,
                       E2bAuth.Key key) {
        var query = Request.extractQueryParameters(request);
        if (route.equals("/sandboxes") || route.equals("/v2/sandboxes")) {
            switch (method) {
                case "POST" -> E2bReply.json(response, callback, 201, sandboxes.create(key, body(request)));
                case "GET" -> {
                    E2bReply.page(response, callback, list.list(key, SandboxList.Query.of(query)));
                }
                default -> throw new E2bException(405, method + " is not allowed on " + route);
            }
            return;
        }
        if (route.equals("/snapshots") && method.equals("GET")) {
            E2bReply.page(response, callback, snapshots.list(key, query.getValue("sandboxID"), query.getValue("name"), query.getValue("limit"),
                    query.getValue("nextToken")));
            return;
        }
        Matcher template = Pattern.compile("/templates/([^/]+)").matcher(route);
        if (template.matches() && method.equals("DELETE")) {
            snapshots.delete(key, template.group(1));
            E2bReply.empty(response, callback);
            return;
        }
        if (NOT_OFFERED.matcher(route).matches()) {
            String what = route.contains("template") ? "template builds" : route.contains("volume") ? "volumes"
                    : route.contains("secret") ? "secrets" : route.contains("logs") ? "sandbox logs (read them with "
                    + "hearth logs, or GET /v1/computers/{id}/logs)" : "MCP gateways";
            throw E2bException.notOffered(what);
        }
        Matcher one = ONE.matcher(route);
        if (!one.matches()) {
            throw new E2bException(404, "no E2B route " + method + " " + route);
        }
        sandbox(request, response, callback, method, one.group(1), one.group(2) == null ? "" : one.group(2), key, query);
    }

    private void sandbox(Request request, Response response, Callback callback, String method, String id,
                         String action, E2bAuth.Key key, org.eclipse.jetty.util.Fields query) {
        switch (method + " " + action) {
            case "GET " -> E2bReply.json(response, callback, 200, sandboxes.info(key, id));
            case "DELETE " -> {
                life.kill(key, id);
                E2bReply.empty(response, callback);
            }
            case "POST /timeout", "POST /refreshes" -> {
                life.timeout(key, id, durationOrTimeout(body(request)));
                E2bReply.empty(response, callback);
            }
            case "POST /connect", "POST /resume" -> {
                var connected = life.connect(key, id, body(request));
                E2bReply.json(response, callback, connected.status(), connected.sandbox());
            }
            case "POST /pause" -> {
                life.pause(key, id, body(request));
                E2bReply.empty(response, callback);
            }
            case "GET /metrics" -> E2bReply.json(response, callback, 200, life.metrics(key, id,
                    query.getValue("start"), query.getValue("end")));
            case "POST /snapshots" -> E2bReply.json(response, callback, 201, snapshots.create(key, id, body(request)));
            case "POST /fork" -> E2bReply.json(response, callback, 201, snapshots.fork(key, id, body(request)));
            case "PUT /network" -> throw new E2bException(400, "changing a sandbox's network through E2B's API is "
                    + "not offered yet; PATCH /v1/computers/" + id + " with network does it");
            default -> throw new E2bException(404, "no E2B route " + method + " /sandboxes/" + id + action);
        }
    }

    /** {@code refreshes} names its extension {@code duration}; {@code timeout} {@code timeout}. */
    private static JsonNode durationOrTimeout(JsonNode body) {
        if (body.has("duration") && !body.has("timeout")) {
            var copy = E2bJson.object();
            copy.set("timeout", body.path("duration"));
            return copy;
        }
        return body;
    }

    private static JsonNode body(Request request) {
        try (var in = Content.Source.asInputStream(request)) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                throw new E2bException(413, "the body is over 1 MiB");
            }
            return bytes.length == 0 ? E2bJson.object() : E2bJson.MAPPER.readTree(bytes);
        } catch (IOException e) {
            throw new E2bException(400, "the body is not JSON: " + e.getMessage());
        }
    }

}
