package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.bench.ProbeCases.Auth;
import dev.hearth.bench.ProbeCases.Probe;
import dev.hearth.bench.RawHttp.Answer;
import dev.hearth.server.http.Route;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Wrong types in the fields a route really takes. The route table does not say which fields those
 * are, so the probe asks the server: the body binding is strict and names an unknown field
 * ({@code details.fields.X = "unknown field"}), so each candidate name is sent with a value no field
 * accepts, and the names the server does not call unknown are the route's fields. Candidates are the
 * field names docs/api.md spells out; objects and arrays of objects are descended one level at a time.
 * Each known field then gets values of every wrong kind, one field per body, so that no body is a
 * complete valid request (and, for example, no computer or database is ever created).
 */
final class FieldProbe {
    private static final String UNKNOWN = "unknown field";
    private static final String PROBE_FIELD = "zz_probe_unknown";
    private static final int MAX_DEPTH = 3;
    // Literals of every kind a field can be wrong in; no string among them is a valid name, email or reference.
    private static final List<String> WRONG = List.of("\"not a number!\"", "\"\"", "1.5", "-1", "0", "2147483648",
            "9223372036854775808", "99999999999999999999999", "1e400", "-1e400", "true", "null", "{}", "[]",
            "[1, \"a\", null]", "\"" + "x".repeat(200_000) + "\"", "\"\\u0000\\u202e\\ud800\"");
    private static final List<String> FALLBACK = List.of("name", "value", "role", "email", "description", "image",
            "env", "ports", "resources", "cpus", "memory_mb", "command", "cwd", "stdin", "timeout_seconds",
            "public_key", "expires_in_days", "auto_sleep_seconds", "protected", "network", "reference", "version");

    private final Route route;
    private final String target;
    private final List<String> words;
    private final Function<Probe, Optional<Answer>> send;
    private final List<String> found = new ArrayList<>();

    private FieldProbe(Route route, String target, List<String> words, Function<Probe, Optional<Answer>> send) {
        this.route = route;
        this.target = target;
        this.words = words;
        this.send = send;
    }

    /**
     * Probes the fields of {@code route} at {@code target} (real ids, so the body is reached); every
     * request goes through {@code send}, which judges it like any other probe. Returns the fields
     * found, or empty when the body is never read (no body taken, or refused before it).
     */
    static List<String> run(Route route, String target, List<String> words, Function<Probe, Optional<Answer>> send) {
        if (route.method().equals("GET") || route.method().equals("DELETE")) {
            return List.of();
        }
        var probe = new FieldProbe(route, target, words, send);
        if (probe.isUnknown(List.of(PROBE_FIELD))) {
            probe.descend(List.of());
        }
        return probe.found;
    }

    /** Field names from docs/api.md: brace lists in code spans ({@code {name, value?}}) and rows of field tables. */
    static List<String> dictionary(Path docs) {
        if (!Files.exists(docs)) {
            return FALLBACK;
        }
        var words = new TreeSet<>(FALLBACK);
        var item = Pattern.compile("^\\s*\"?([a-z][a-z0-9_]*)\"?\\??\\s*(:.*)?$");
        var span = Pattern.compile("`([^`]*)`");
        var braces = Pattern.compile("\\{([^{}]*)}");
        var assignment = Pattern.compile("([a-z][a-z0-9_]*)=");
        boolean fieldTable = false;
        try {
            for (String line : Files.readAllLines(docs)) {
                span.matcher(line).results().map(r -> r.group(1)).forEach(code -> {
                    braces.matcher(code).results().flatMap(b -> List.of(b.group(1).split(",")).stream())
                            .map(item::matcher).filter(m -> m.matches()).forEach(m -> words.add(m.group(1)));
                    assignment.matcher(code).results().forEach(a -> words.add(a.group(1)));
                });
                fieldTable = line.startsWith("| field |") || (fieldTable && line.startsWith("|"));
                if (fieldTable && !line.startsWith("| field |") && !line.startsWith("|---")) {
                    words.add(line.split("\\|")[1].strip());
                }
            }
        } catch (IOException e) {
            return FALLBACK;
        }
        return List.copyOf(words);
    }

    /** Finds the fields under {@code at} and probes each. */
    private void descend(List<String> at) {
        for (String word : words) {
            var path = append(at, word);
            if (!isUnknown(path)) {
                found.add(key(path));
                wrongValues(path);
                if (depth(path) < MAX_DEPTH) {
                    children(path);
                }
            }
        }
    }

    /** An object field and an array of objects both name their own unknown fields: go one level down. */
    private void children(List<String> path) {
        if (isUnknown(append(path, PROBE_FIELD))) {
            descend(path);
        }
        var element = append(path, "[0]");
        if (isUnknown(append(element, PROBE_FIELD))) {
            descend(element);
        }
    }

    private void wrongValues(List<String> path) {
        for (String literal : WRONG) {
            send(path, literal, "field " + key(path) + " = " + ProbeCases.abbreviate(literal));
        }
    }

    /** Whether the server calls {@code path} an unknown field when it holds a value nothing accepts. */
    private boolean isUnknown(List<String> path) {
        boolean probeField = path.getLast().equals(PROBE_FIELD);
        var answer = send(path, probeField ? "1" : "[[]]", probeField ? "unknown field at " + key(path)
                : "field discovery " + key(path));
        if (answer.isEmpty() || answer.get().status() != 400) {
            return false;
        }
        try {
            JsonNode problem = Json.mapper().readTree(answer.get().body()).path("error").path("details")
                    .path("fields").path(key(path));
            return UNKNOWN.equals(problem.asText(null));
        } catch (IOException notJson) {
            return false;
        }
    }

    private Optional<Answer> send(List<String> path, String literal, String kase) {
        var headers = new ArrayList<>(List.of("Content-Type: application/json"));
        if (route.keyRequired()) {
            headers.add("Idempotency-Key: probe-" + UUID.randomUUID());
        }
        byte[] body = nest(path, literal).getBytes(StandardCharsets.UTF_8);
        return send.apply(new Probe(kase, route.method(), route.template(), target, Auth.ADMIN, headers, body));
    }

    /** {@code ["ports", "[0]", "target"]} and {@code 1} make {@code {"ports": [{"target": 1}]}}. */
    static String nest(List<String> path, String literal) {
        String json = literal;
        for (int i = path.size() - 1; i >= 0; i--) {
            String step = path.get(i);
            if (step.equals("[0]")) {
                json = "[" + json + "]";
            } else {
                ObjectNode holder = JsonNodeFactory.instance.objectNode();
                holder.put(step, 0);
                String open = holder.toString();
                json = open.substring(0, open.length() - 2) + json + "}";
            }
        }
        return json;
    }

    /** The field path as the server's errors name it: {@code ports[0].target}. */
    static String key(List<String> path) {
        return String.join(".", path).replace(".[", "[");
    }

    private static int depth(List<String> path) {
        return (int) path.stream().filter(step -> !step.equals("[0]")).count();
    }

    private static List<String> append(List<String> path, String step) {
        var longer = new ArrayList<>(path);
        longer.add(step);
        return longer;
    }
}
