package dev.hearth.server.nodes;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.http.ErrorEnvelope;
import dev.hearth.server.http.Relay;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.time.Clock;
import java.util.regex.Pattern;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API listener's door for other nodes, outside {@code /v1} and never open to users: every
 * request must carry a {@link NodeKey} vouch for {@code node:NAME}. {@code GET /_nodes/images/DIGEST}
 * answers 204 when that image is unpacked here (404 when not); {@code PUT /_nodes/computers/ID?from=NAME}
 * takes a sleeping computer off node NAME (its tar stream is the body) and answers 204, and
 * {@code PUT /_nodes/databases/ID?from=NAME} a sleeping database;
 * {@code GET /_nodes/checkpoints/ID[?image=true]} answers a checkpoint here as tar.
 */
public final class Arrivals extends Handler.Abstract {
    public static final String PREFIX = "/_nodes/";
    private static final Logger LOG = LoggerFactory.getLogger(Arrivals.class);
    private static final Pattern IMAGE = Pattern.compile("^/_nodes/images/(sha256:[0-9a-f]{64})$");
    private static final Pattern CHECKPOINT = Pattern.compile("^/_nodes/checkpoints/([A-Za-z0-9_-]{1,64})$");
    private static final Pattern COMPUTER = Pattern.compile("^/_nodes/computers/([A-Za-z0-9_-]{1,64})$");
    private static final Pattern DATABASE = Pattern.compile("^/_nodes/databases/([A-Za-z0-9_-]{1,64})$");
    private static final Pattern NODE = Pattern.compile("^[a-z0-9][a-z0-9-]{0,62}$");

    private final NodeKey key;
    private final Cargo cargo;
    private final DatabaseCargo databases;
    private final Clock clock;

    public Arrivals(NodeKey key, Cargo cargo, DatabaseCargo databases, Clock clock) {
        this.key = key;
        this.cargo = cargo;
        this.databases = databases;
        this.clock = clock;
    }

    /** The caller a node vouches for when it ships to another: never a principal, so never valid on /v1. */
    static String caller(String node) {
        return "node:" + node;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = request.getHttpURI().getPath();
        if (path == null || !path.startsWith(PREFIX)) {
            return false;
        }
        String requestId = Ids.next();
        try {
            var shipment = serve(request, path);
            if (shipment == null) {
                response.setStatus(204);
                callback.succeeded();
                return true;
            }
            response.setStatus(200);
            response.getHeaders().put("Content-Type", "application/x-tar");
            try (var out = Content.Sink.asOutputStream(response)) {
                shipment.writeTo(out);
            }
            callback.succeeded();
        } catch (IOException e) {
            LOG.warn("request {} {} {} from another node broke off: {}", requestId, request.getMethod(), path,
                    e.getMessage());
            callback.failed(e);
        } catch (ApiException e) {
            ErrorEnvelope.write(response, callback, e, requestId);
        } catch (Exception e) {
            LOG.error("request {} {} {} from another node failed", requestId, request.getMethod(), path, e);
            ErrorEnvelope.write(response, callback, new ApiException(ErrorCode.INTERNAL, "internal error; quote "
                    + "request id " + requestId + ": " + e.getMessage()), requestId);
        }
        return true;
    }

    /** What to send back, or null for 204. */
    private Cargo.Shipment serve(Request request, String path) throws Exception {
        String method = request.getMethod();
        var query = Request.extractQueryParameters(request);
        String from = query.getValue("from");
        String node = verify(request, method).substring(caller("").length());
        var image = IMAGE.matcher(path);
        if (method.equals("GET") && image.matches()) {
            if (!cargo.hasImage(image.group(1))) {
                throw ApiException.notFound("image " + image.group(1));
            }
            return null;
        }
        var checkpoint = CHECKPOINT.matcher(path);
        if (method.equals("GET") && checkpoint.matches()) {
            return cargo.checkpoint(checkpoint.group(1), "true".equals(query.getValue("image")));
        }
        var computer = COMPUTER.matcher(path);
        if (method.equals("PUT") && computer.matches() && node.equals(from)) {
            try (var body = Content.Source.asInputStream(request)) {
                cargo.receiveComputer(computer.group(1), from, body);
            }
            return null;
        }
        var database = DATABASE.matcher(path);
        if (method.equals("PUT") && database.matches() && node.equals(from)) {
            try (var body = Content.Source.asInputStream(request)) {
                databases.receiveDatabase(database.group(1), from, body);
            }
            return null;
        }
        throw ApiException.notFound("route " + method + " " + path);
    }

    private String verify(Request request, String method) {
        String vouch = request.getHeaders().get(Relay.HEADER);
        String caller = vouch == null ? null
                : key.verify(vouch, method, request.getHttpURI().getPathQuery(), clock.instant()).orElse(null);
        String prefix = caller("");
        if (caller == null || !caller.startsWith(prefix) || !NODE.matcher(caller.substring(prefix.length())).matches()) {
            throw ApiException.unauthenticated("only nodes sharing this store may send to " + PREFIX);
        }
        return caller;
    }
}
