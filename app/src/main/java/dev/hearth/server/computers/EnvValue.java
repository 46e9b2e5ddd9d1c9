package dev.hearth.server.computers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.Json;
import dev.hearth.api.Validate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/** One environment variable of a computer: a literal, or a reference to a workspace variable by name. */
public sealed interface EnvValue {
    int MAX_VARIABLES = 256;
    int MAX_LITERAL_BYTES = 32 * 1024;
    Pattern NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]{0,127}$");

    record Literal(String value) implements EnvValue {
    }

    record Secret(String variable) implements EnvValue {
    }

    /** Reads {@code env} of a request: names to strings or to {@code {secret: VARIABLE}}; null values stay null (removals). */
    static Map<String, EnvValue> parse(JsonNode env, boolean allowNull) {
        var parsed = new LinkedHashMap<String, EnvValue>();
        if (env == null || env.isNull()) {
            return parsed;
        }
        if (!env.isObject()) {
            throw ApiException.invalidField("env", "must be an object of NAME: value or NAME: {secret: VARIABLE}");
        }
        if (env.size() > MAX_VARIABLES) {
            throw ApiException.invalidField("env", "at most " + MAX_VARIABLES + " variables");
        }
        env.fields().forEachRemaining(e -> parsed.put(name(e.getKey()), value(e.getKey(), e.getValue(), allowNull)));
        return parsed;
    }

    private static String name(String name) {
        if (!NAME.matcher(name).matches()) {
            throw ApiException.invalidField("env." + name, "names are letters, digits and _, not starting with a digit");
        }
        return name;
    }

    private static EnvValue value(String name, JsonNode v, boolean allowNull) {
        String field = "env." + name;
        if (v.isNull() && allowNull) {
            return null;
        }
        if (v.isTextual()) {
            if (v.asText().getBytes(StandardCharsets.UTF_8).length > MAX_LITERAL_BYTES) {
                throw ApiException.invalidField(field, "at most " + MAX_LITERAL_BYTES + " bytes");
            }
            return new Literal(v.asText());
        }
        if (v.isObject() && v.size() == 1 && v.path("secret").isTextual()) {
            return new Secret(Validate.dnsLabel(field + ".secret", v.path("secret").asText()));
        }
        throw ApiException.invalidField(field, "must be a string or {\"secret\": \"variable-name\"}");
    }

    /** Stored form: {NAME: {"literal": v} | {"secret": name}}. */
    static String store(Map<String, EnvValue> env) {
        var node = Json.mapper().createObjectNode();
        env.forEach((k, v) -> {
            switch (v) {
                case Literal l -> node.putObject(k).put("literal", l.value());
                case Secret s -> node.putObject(k).put("secret", s.variable());
            }
        });
        return node.toString();
    }

    static Map<String, EnvValue> load(String stored) {
        try {
            var parsed = new LinkedHashMap<String, EnvValue>();
            Json.mapper().readTree(stored).fields().forEachRemaining(e -> parsed.put(e.getKey(),
                    e.getValue().has("secret") ? new Secret(e.getValue().path("secret").asText())
                            : new Literal(e.getValue().path("literal").asText())));
            return parsed;
        } catch (IOException e) {
            throw new IllegalStateException("stored env is not JSON", e);
        }
    }
}
