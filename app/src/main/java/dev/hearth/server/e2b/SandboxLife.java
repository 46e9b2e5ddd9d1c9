package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/**
 * What happens to a sandbox over its life: its lease set or extended, a pause (a sleep with its
 * memory kept), a connect (a wake), a kill, and the metrics it was sampled at.
 */
final class SandboxLife {
    private final V1 v1;
    private final Sandboxes sandboxes;
    private final Clock clock;

    SandboxLife(V1 v1, Sandboxes sandboxes, Clock clock) {
        this.v1 = v1;
        this.sandboxes = sandboxes;
        this.clock = clock;
    }

    /** Deletes it; one deleted already is not found (so the SDK's kill() answers false). */
    void kill(E2bAuth.Key caller, String id) {
        sandboxes.sandbox(caller, id);
        sandboxes.computer(caller.authorization(), id);
        v1.json("DELETE", "/computers/" + id, caller.authorization(), null).orThrow();
    }

    /** {@code setTimeout}: the lease ends {@code timeout} seconds from now, sooner or later than before. */
    void timeout(E2bAuth.Key caller, String id, JsonNode request) {
        sandboxes.sandbox(caller, id);
        sandboxes.computer(caller.authorization(), id);
        int seconds = request.path("timeout").asInt(-1);
        if (seconds < 1) {
            throw new E2bException(400, "timeout is a whole number of seconds, at least 1");
        }
        lease(caller.authorization(), id, clock.instant().plusSeconds(seconds));
    }

    private void lease(String authorization, String id, Instant until) {
        v1.json("PATCH", "/computers/" + id, authorization, Map.of("expires_at", until.toString())).orThrow();
    }

    /**
     * {@code connect}: a paused sandbox is woken (201), a running one answered as it is (200); the
     * lease is extended to {@code timeout} from now, never shortened.
     */
    record Connected(int status, ObjectNode sandbox) {
    }

    Connected connect(E2bAuth.Key caller, String id, JsonNode request) {
        var row = sandboxes.sandbox(caller, id);
        var computer = sandboxes.computer(caller.authorization(), id);
        int status = 200;
        if (computer.path("state").asText().equals("sleeping")) {
            v1.json("POST", "/computers/" + id + "/wake", caller.authorization(), null).orThrow();
            status = 201;
        }
        int seconds = request.path("timeout").asInt(E2bSettings.DEFAULT_TIMEOUT);
        var wanted = clock.instant().plusSeconds(Math.max(1, seconds));
        var expires = computer.path("expires_at");
        if (expires.isTextual() && Instant.parse(expires.asText()).isBefore(wanted)
                || !expires.isTextual() && status == 201) {
            lease(caller.authorization(), id, wanted);
        }
        return new Connected(status, sandboxes.sandbox(id, row.template()));
    }

    /** A sleep that keeps its memory; a paused sandbox is a conflict (the SDK's pause() answers false). */
    void pause(E2bAuth.Key caller, String id, JsonNode request) {
        sandboxes.sandbox(caller, id);
        if (request.path("memory").isBoolean() && !request.path("memory").asBoolean()) {
            throw new E2bException(400, "Hearth pauses with the memory kept; memory: false is not offered");
        }
        var computer = sandboxes.computer(caller.authorization(), id);
        if (computer.path("state").asText().equals("sleeping")) {
            throw new E2bException(409, "sandbox " + id + " is paused already");
        }
        var answer = v1.json("POST", "/computers/" + id + "/sleep", caller.authorization(), Map.of()).orThrow();
        for (var op : answer.path("operations")) {
            var done = v1.get("/operations/" + op.asText() + "?wait=60", caller.authorization()).orThrow();
            if (done.path("operation").path("state").asText().equals("failed")) {
                throw new E2bException(500, "the sandbox could not pause: "
                        + done.path("operation").path("error").path("message").asText());
            }
        }
    }

    /** {@code GET /sandboxes/{id}/metrics?start=&end=} (unix seconds): the samples of the last hour. */
    ArrayNode metrics(E2bAuth.Key caller, String id, String start, String end) {
        sandboxes.sandbox(caller, id);
        var computer = sandboxes.computer(caller.authorization(), id);
        var query = new StringBuilder();
        if (start != null) {
            query.append(query.isEmpty() ? "?" : "&").append("since=").append(unix(start));
        }
        if (end != null) {
            query.append(query.isEmpty() ? "?" : "&").append("until=").append(unix(end));
        }
        var samples = v1.get("/computers/" + id + "/metrics/history" + query, caller.authorization()).orThrow();
        var out = E2bJson.NODES.arrayNode();
        int cpus = (int) Math.ceil(computer.path("resources").path("cpus").asDouble(1));
        for (var s : samples.path("samples")) {
            ObjectNode m = out.addObject();
            m.put("timestamp", s.path("at").asText());
            m.put("timestampUnix", Instant.parse(s.path("at").asText()).getEpochSecond());
            m.put("cpuCount", cpus);
            m.put("cpuUsedPct", s.path("cpu_percent").asDouble(0));
            m.put("memUsed", s.path("memory_bytes").asLong());
            m.put("memTotal", s.path("memory_limit_bytes").asLong());
            m.put("memCache", 0);
            m.put("diskUsed", s.path("disk_used_bytes").asLong());
            m.put("diskTotal", s.path("disk_size_bytes").asLong(0));
        }
        return out;
    }

    private static String unix(String seconds) {
        try {
            return Instant.ofEpochSecond(Long.parseLong(seconds)).toString();
        } catch (NumberFormatException e) {
            throw new E2bException(400, "start and end are unix seconds");
        }
    }
}
