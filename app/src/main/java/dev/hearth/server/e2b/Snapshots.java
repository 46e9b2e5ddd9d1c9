package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * E2B's snapshots are Hearth's kept checkpoints: taken of a running sandbox (memory, overlay and
 * disk), outliving it, and made into new sandboxes when named as a template. A fork is a checkpoint
 * made for the purpose, the sandboxes made from it, and the checkpoint deleted again.
 */
final class Snapshots {
    private static final int MAX_FORKS = 32;

    private final V1 v1;
    private final Sandboxes sandboxes;

    Snapshots(V1 v1, Sandboxes sandboxes) {
        this.v1 = v1;
        this.sandboxes = sandboxes;
    }

    /** {@code POST /sandboxes/{id}/snapshots}: answered once the checkpoint is ready. */
    ObjectNode create(E2bAuth.Key caller, String id, JsonNode request) {
        sandboxes.sandbox(caller, id);
        sandboxes.computer(caller.authorization(), id);
        Map<String, Object> body = request.path("name").isTextual()
                ? Map.of("name", request.path("name").asText(), "keep", true) : Map.of("keep", true);
        var checkpoint = made(caller, id, body);
        var snapshot = E2bJson.object();
        snapshot.put("snapshotID", checkpoint.path("id").asText());
        snapshot.putArray("names").add(caller.workspace() + "/" + checkpoint.path("name").asText() + ":default");
        return snapshot;
    }

    /** A checkpoint of the sandbox, waited for until ready. */
    private JsonNode made(E2bAuth.Key caller, String id, Map<String, Object> body) {
        var answer = v1.json("POST", "/computers/" + id + "/checkpoints", caller.authorization(), body).orThrow();
        for (var op : answer.path("operations")) {
            var done = v1.get("/operations/" + op.asText() + "?wait=60", caller.authorization()).orThrow();
            if (done.path("operation").path("state").asText().equals("failed")) {
                throw new E2bException(500, "the snapshot failed: "
                        + done.path("operation").path("error").path("message").asText());
            }
        }
        String chk = answer.path("checkpoint").path("id").asText();
        return v1.get("/computers/" + id + "/checkpoints/" + chk, caller.authorization()).orThrow().path("checkpoint");
    }

    /** {@code GET /snapshots?sandboxID=&name=}: the workspace's kept checkpoints, of one sandbox or name if given. */
    Sandboxes.Listed list(E2bAuth.Key caller, String sandboxId, String name, String limit, String nextToken) {
        var query = new StringBuilder("?limit=" + (limit == null ? "100" : Sandboxes.encode(limit)));
        if (nextToken != null && !nextToken.isBlank()) {
            query.append("&cursor=").append(Sandboxes.encode(nextToken));
        }
        var page = v1.get("/workspaces/" + caller.workspace() + "/checkpoints" + query, caller.authorization()).orThrow();
        ArrayNode out = E2bJson.NODES.arrayNode();
        for (var c : page.path("checkpoints")) {
            if ((sandboxId == null || sandboxId.equals(c.path("source").asText()))
                    && (name == null || name.equals(c.path("name").asText()))) {
                var info = out.addObject();
                info.put("snapshotID", c.path("id").asText());
                info.putArray("names").add(caller.workspace() + "/" + c.path("name").asText() + ":default");
            }
        }
        return new Sandboxes.Listed(out, page.path("next_cursor").isTextual() ? page.path("next_cursor").asText() : null);
    }

    /** {@code DELETE /templates/{id}}: a snapshot; anything else is not found. */
    void delete(E2bAuth.Key caller, String id) {
        String path = "/workspaces/" + caller.workspace() + "/checkpoints/" + id;
        var found = v1.json("GET", path, caller.authorization(), null);
        // One being deleted is gone for E2B: its second delete answers false, as E2B's does.
        if (found.status() == 404 || found.status() == 400
                || found.ok() && found.body().path("checkpoint").path("state").asText().equals("deleting")) {
            throw E2bException.notFound("snapshot " + id);
        }
        var answer = v1.json("DELETE", path, caller.authorization(), null);
        if (answer.status() == 404 || answer.status() == 400) {
            throw E2bException.notFound("snapshot " + id);
        }
        answer.orThrow();
    }

    /** {@code POST /sandboxes/{id}/fork}: {@code count} new sandboxes as this one is now, each or its error. */
    ArrayNode fork(E2bAuth.Key caller, String id, JsonNode request) {
        var row = sandboxes.sandbox(caller, id);
        sandboxes.computer(caller.authorization(), id);
        int count = request.path("count").asInt(1);
        if (count < 1 || count > MAX_FORKS) {
            throw new E2bException(400, "count is 1 to " + MAX_FORKS);
        }
        var checkpoint = made(caller, id, Map.of());
        var out = E2bJson.NODES.arrayNode();
        try {
            for (int i = 0; i < count; i++) {
                var create = E2bJson.object();
                create.put("templateID", checkpoint.path("id").asText());
                if (request.has("timeout")) {
                    create.set("timeout", request.path("timeout"));
                }
                try {
                    var sandbox = sandboxes.createFrom(caller, create, row.template());
                    out.addObject().set("sandbox", sandbox);
                } catch (E2bException e) {
                    var error = out.addObject().putObject("error");
                    error.put("code", e.status());
                    error.put("message", e.getMessage());
                }
            }
        } finally {
            v1.json("DELETE", "/computers/" + id + "/checkpoints/" + checkpoint.path("id").asText(),
                    caller.authorization(), null);
        }
        return out;
    }
}
