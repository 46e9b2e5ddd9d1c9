package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.server.nodes.NodeKey;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;

/**
 * E2B's sandboxes as computers: what the control plane's calls do, translated onto {@code /v1}. A
 * sandbox is a computer made through this API (labelled {@code hearth/e2b}, with a row of its own);
 * its id is the computer's, its lease the computer's lifetime, pause a sleep (memory kept) and
 * connect a wake that extends the lease but never shortens it.
 */
final class Sandboxes {
    static final String LABEL = "hearth/e2b";
    private static final Pattern ID = Pattern.compile("[0-9a-z]{27}");

    private final V1 v1;
    private final Jdbi jdbi;
    private final E2bStore store;
    private final E2bSettings settings;
    private final NodeKey key;
    private final Clock clock;

    Sandboxes(V1 v1, Jdbi jdbi, E2bStore store, E2bSettings settings, NodeKey key, Clock clock) {
        this.v1 = v1;
        this.jdbi = jdbi;
        this.store = store;
        this.settings = settings;
        this.key = key;
        this.clock = clock;
    }

    /** The sandbox's envd access token: the same across sleeps and restarts, its own for every sandbox. */
    String token(String sandboxId) {
        return key.derive("e2b-envd", sandboxId);
    }

    /** The row of a sandbox made through E2B in the key's workspace; 404 for anything else. */
    E2bStore.Sandbox sandbox(E2bAuth.Key caller, String id) {
        return known(id).filter(s -> s.workspace().equals(caller.workspace()))
                .orElseThrow(() -> E2bException.notFound("sandbox " + id));
    }

    Optional<E2bStore.Sandbox> known(String id) {
        return ID.matcher(id).matches() ? jdbi.withHandle(h -> store.find(h, id)) : Optional.empty();
    }

    /** The sandbox's computer as {@code /v1} shows it; 404 once deleted or being deleted. */
    JsonNode computer(String authorization, String id) {
        var answer = v1.get("/computers/" + id, authorization);
        var computer = answer.ok() ? answer.body().path("computer") : null;
        if (answer.status() == 404 || computer != null && (!computer.path("deleted_at").isNull()
                || computer.path("pending").asText().equals("deleting"))) {
            throw E2bException.notFound("sandbox " + id);
        }
        return answer.orThrow().path("computer");
    }

    // ---- create

    JsonNode create(E2bAuth.Key caller, JsonNode request) {
        String template = request.path("templateID").asText("base");
        return create(caller, request, from(caller, template), template);
    }

    /** A sandbox from a checkpoint made for it (a fork), under the template its source was made from. */
    JsonNode createFrom(E2bAuth.Key caller, JsonNode request, String template) {
        return create(caller, request, Map.entry("from_checkpoint", request.path("templateID").asText()), template);
    }

    private JsonNode create(E2bAuth.Key caller, JsonNode request, Map.Entry<String, String> from, String template) {
        refuseUnoffered(request);
        int timeout = timeout(request.path("timeout"));
        var body = new LinkedHashMap<String, Object>();
        body.put("name", "e2b-" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 12));
        body.put(from.getKey(), from.getValue());
        body.put("env", E2bJson.MAPPER.convertValue(request.path("envVars"), Map.class));
        var labels = new LinkedHashMap<String, Object>();
        request.path("metadata").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
        labels.put(LABEL, "sandbox");
        body.put("labels", labels);
        boolean autoPause = request.path("autoPause").asBoolean(false);
        body.put("expires_at", clock.instant().plusSeconds(timeout).toString());
        body.put("on_expire", autoPause ? "sleep" : "delete");
        if (request.path("allow_internet_access").isBoolean() && !request.path("allow_internet_access").asBoolean()) {
            body.put("network", Map.of("internet", false));
        }
        var answer = v1.json("POST", "/workspaces/" + caller.workspace() + "/computers", caller.authorization(), body);
        if (!answer.ok()) {
            throw createFailure(template, answer);
        }
        var computer = awaitCreated(caller, answer.body(), template);
        String id = computer.path("id").asText();
        boolean autoResume = request.path("autoResume").path("enabled").asBoolean(false);
        jdbi.useTransaction(h -> store.insert(h, new E2bStore.Sandbox(id, caller.workspace(), caller.keyId(),
                template, autoResume), clock.instant()));
        return sandbox(id, template);
    }

    /** What E2B's create may ask that Hearth does not do: said, never silently left out. */
    private static void refuseUnoffered(JsonNode request) {
        for (var unoffered : Map.of("mcp", "MCP gateways", "iam", "workload identity (iam)", "volumeMounts",
                "volumes").entrySet()) {
            if (asked(request.path(unoffered.getKey()))) {
                throw E2bException.notOffered(unoffered.getValue());
            }
        }
        // allowPublicTraffic: true is what every sandbox has (its ports are public, as Hearth's are).
        request.path("network").properties().forEach(rule -> {
            if (asked(rule.getValue()) && !(rule.getKey().equals("allowPublicTraffic") && rule.getValue().asBoolean())) {
                throw E2bException.notOffered("E2B's network rules (network." + rule.getKey() + "; Hearth's own: "
                        + "allow_internet_access, or PATCH /v1/computers/{id} with network)");
            }
        });
        if (request.path("autoPauseMemory").isBoolean() && !request.path("autoPauseMemory").asBoolean()) {
            throw new E2bException(400, "Hearth pauses with the memory kept; keepMemory: false is not offered");
        }
    }

    private static boolean asked(JsonNode value) {
        return value.isContainerNode() ? !value.isEmpty() : !value.isMissingNode() && !value.isNull();
    }

    private Map.Entry<String, String> from(E2bAuth.Key caller, String template) {
        String image = settings.templates().get(template);
        if (image != null) {
            return Map.entry("image", image);
        }
        if (ID.matcher(template).matches()) {
            var kept = v1.get("/workspaces/" + caller.workspace() + "/checkpoints/" + template, caller.authorization());
            if (kept.ok()) {
                return Map.entry("from_checkpoint", template);
            }
        }
        if (!template.contains("/") && !template.contains(":")) {
            throw new E2bException(404, "template '" + template + "' not found: Hearth knows templates "
                    + settings.templates().keySet() + ", snapshots by id, and image references (e.g. docker.io/library/"
                    + "python:3.12)");
        }
        return Map.entry("image", template);
    }

    private static E2bException createFailure(String template, V1.Answer answer) {
        var failure = answer.failure();
        if (answer.status() == 400 && answer.body().path("error").path("details").path("fields").has("image")) {
            return new E2bException(404, "template '" + template + "' not found: " + failure.getMessage());
        }
        return failure;
    }

    /** A create that must pull first answers at once with its operation: E2B's clients wait here instead. */
    private JsonNode awaitCreated(E2bAuth.Key caller, JsonNode answer, String template) {
        var computer = answer.path("computer");
        for (var op : answer.path("operations")) {
            v1.get("/operations/" + op.asText() + "?wait=55", caller.authorization());
        }
        if (!answer.path("operations").isEmpty()) {
            computer = computer(caller.authorization(), computer.path("id").asText());
        }
        if (!computer.path("state").asText().equals("ready")) {
            String why = computer.path("error").path("message").asText("it is " + computer.path("state").asText());
            v1.json("DELETE", "/computers/" + computer.path("id").asText(), caller.authorization(), null);
            if (computer.path("error").path("code").asText().equals("image_pull_failed")) {
                throw new E2bException(404, "template '" + template + "' not found: " + why);
            }
            throw new E2bException(500, "the sandbox did not start: " + why);
        }
        return computer;
    }

    private static int timeout(JsonNode given) {
        int seconds = given.isIntegralNumber() ? given.asInt() : E2bSettings.DEFAULT_TIMEOUT;
        if (seconds < 1 || seconds > 366 * 24 * 3600) {
            throw new E2bException(400, "timeout must be 1 second to a year");
        }
        return seconds;
    }

    /** The Sandbox object of create, connect and fork answers. */
    ObjectNode sandbox(String id, String template) {
        var sandbox = E2bJson.object();
        sandbox.put("sandboxID", id);
        sandbox.put("templateID", template);
        sandbox.put("clientID", "hearth");
        sandbox.put("envdVersion", E2bSettings.ENVD_VERSION);
        sandbox.put("envdAccessToken", token(id));
        sandbox.put("domain", settings.publicDomain());
        sandbox.putNull("alias");
        sandbox.putNull("trafficAccessToken");
        return sandbox;
    }

    // ---- read

    ObjectNode info(E2bAuth.Key caller, String id) {
        var row = sandbox(caller, id);
        var computer = computer(caller.authorization(), id);
        var detail = listed(computer, row);
        detail.put("domain", settings.publicDomain());
        detail.put("envdAccessToken", token(id));
        var lifecycle = detail.putObject("lifecycle");
        lifecycle.put("onTimeout", computer.path("on_expire").asText("delete").equals("sleep") ? "pause" : "kill");
        lifecycle.put("autoResume", row.autoResume());
        detail.put("allowInternetAccess", computer.path("network").path("internet").asBoolean(true));
        return detail;
    }

    /** A sandbox as list shows it (and getInfo, with more). */
    ObjectNode listed(JsonNode computer, E2bStore.Sandbox row) {
        var detail = E2bJson.object();
        detail.put("sandboxID", computer.path("id").asText());
        detail.put("templateID", row == null ? computer.path("image").asText() : row.template());
        detail.putNull("alias");
        detail.put("clientID", "hearth");
        var resources = computer.path("resources");
        detail.put("cpuCount", (int) Math.ceil(resources.path("cpus").asDouble(1)));
        detail.put("memoryMB", resources.path("memory_mb").asInt());
        detail.put("diskSizeMB", resources.path("disk_mb").asInt());
        detail.put("envdVersion", E2bSettings.ENVD_VERSION);
        detail.put("startedAt", computer.path("created_at").asText());
        detail.put("endAt", endAt(computer));
        detail.put("state", computer.path("state").asText().equals("sleeping") ? "paused" : "running");
        var metadata = detail.putObject("metadata");
        computer.path("labels").properties().forEach(e -> {
            if (!e.getKey().equals(LABEL)) {
                metadata.put(e.getKey(), e.getValue().asText());
            }
        });
        return detail;
    }

    /** Its lease's end; one that ended in a sleep (or was lifted) lasts as long as paused sandboxes are kept. */
    private String endAt(JsonNode computer) {
        var expires = computer.path("expires_at");
        if (expires.isTextual()) {
            return expires.asText();
        }
        return Instant.parse(computer.path("updated_at").asText()).plus(Duration.ofDays(30)).toString();
    }

    /** {@code GET /v2/sandboxes}: a page, and the cursor of the next (null on the last). */
    record Listed(JsonNode sandboxes, String next) {
    }

    /** {@code /v1}'s list of the workspace's E2B sandboxes with the metadata and states asked, from {@code cursor}. */
    String listPath(E2bAuth.Key caller, String metadata, String states, String cursor) {
        var query = new StringBuilder("?limit=100&label=" + encode(LABEL + "=sandbox"));
        if (metadata != null && !metadata.isBlank()) {
            for (String pair : metadata.split("&")) {
                query.append("&label=").append(encode(java.net.URLDecoder.decode(pair, StandardCharsets.UTF_8)));
            }
        }
        query.append("&state=").append(encode(hearthStates(states)));
        if (cursor != null) {
            query.append("&cursor=").append(encode(cursor));
        }
        return "/workspaces/" + caller.workspace() + "/computers" + query;
    }

    /** E2B's running and paused, as Hearth's states. */
    private static String hearthStates(String states) {
        if (states == null || states.isBlank()) {
            return "ready,sleeping";
        }
        var out = new java.util.ArrayList<String>();
        for (String state : states.split(",")) {
            switch (state.strip()) {
                case "running" -> out.add("ready");
                case "paused" -> out.add("sleeping");
                default -> throw new E2bException(400, "state is running or paused; got " + state);
            }
        }
        return String.join(",", out);
    }

    static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
