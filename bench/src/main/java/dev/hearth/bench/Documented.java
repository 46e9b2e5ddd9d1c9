package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.bench.ProbeCases.Probe;
import dev.hearth.bench.RawHttp.Answer;
import java.io.IOException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Whether an answer is one the served OpenAPI document promises: its status among the operation's
 * responses and, for an error, its code among those that response lists; and whatever the route, a
 * code's status the one the reference gives it ({@link ErrorCode}). A request that names no
 * operation (a path a dot segment or a bad one made) may only be refused as a client's error.
 */
final class Documented {
    private final JsonNode doc;

    Documented(JsonNode doc) {
        this.doc = doc;
    }

    /** What is undocumented about the answer, if anything. */
    Optional<String> problem(Probe probe, Answer answer) {
        int status = answer.status();
        var code = code(answer);
        if (code.isPresent()) {
            var known = ErrorCode.fromCode(code.get());
            if (known.isEmpty()) {
                return Optional.of("code " + code.get() + " is not one of the reference's");
            }
            if (known.get().status() != status) {
                return Optional.of("code " + code.get() + " comes with " + status + ", documented "
                        + known.get().status());
            }
        }
        var operation = operation(probe);
        if (operation.isEmpty()) {
            return status >= 400 && status < 500 ? Optional.empty()
                    : Optional.of(status + " for a request that names no operation");
        }
        var response = operation.get().path("responses").path(Integer.toString(status));
        if (response.isMissingNode()) {
            return Optional.of("status " + status + " is not among the operation's responses");
        }
        if (status >= 400 && code.isPresent() && !codes(response).contains(code.get())) {
            return Optional.of("code " + code.get() + " is not documented for " + status + " here: " + codes(response));
        }
        return Optional.empty();
    }

    /**
     * The operation the request names: its method (HTTP methods are case-sensitive: "get" is none)
     * on the path of a template whose every parameter is a well-formed id or name, a trailing slash
     * allowed.
     */
    private Optional<JsonNode> operation(Probe probe) {
        if (!probe.method().equals(probe.method().toUpperCase(Locale.ROOT))) {
            return Optional.empty();
        }
        String path = probe.target().split("\\?", 2)[0];
        String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        for (var entry : doc.path("paths").properties()) {
            var op = entry.getValue().path(probe.method().toLowerCase(Locale.ROOT));
            if (!op.isMissingNode() && trimmed.matches(pattern(entry.getKey()))) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }

    private static String pattern(String template) {
        return "/v1" + Pattern.quote(template).replaceAll("\\{[^}]+}", "\\\\E[A-Za-z0-9_-]{1,64}\\\\Q");
    }

    private Set<String> codes(JsonNode response) {
        var resolved = response.has("$ref") ? doc.at(response.path("$ref").asText().substring(1)) : response;
        var codes = new HashSet<String>();
        resolved.findValues("enum").forEach(e -> e.forEach(c -> codes.add(c.asText())));
        return codes;
    }

    private static Optional<String> code(Answer answer) {
        if (answer.status() < 400) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(Json.mapper().readTree(answer.body()).path("error").path("code").asText(null));
        } catch (IOException notJson) {
            return Optional.empty();
        }
    }
}
