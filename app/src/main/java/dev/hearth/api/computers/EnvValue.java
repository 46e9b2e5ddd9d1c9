package dev.hearth.api.computers;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.hearth.api.ApiException;
import dev.hearth.api.Json;
import dev.hearth.api.Validate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/** One environment variable of a computer: a literal, or a reference to a workspace variable by name. */
@JsonDeserialize(using = EnvValue.Reader.class)
public sealed interface EnvValue {
    int MAX_VARIABLES = 256;
    int MAX_LITERAL_BYTES = 32 * 1024;
    Pattern NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]{0,127}$");

    record Literal(String value) implements EnvValue {
    }

    record Secret(String variable) implements EnvValue {
    }

    /**
     * The names of a request's {@code env} checked (the values were, as they were bound); with
     * {@code allowNull} (a PATCH) a null value stays, to remove the variable.
     */
    static Map<String, EnvValue> checked(Map<String, EnvValue> env, boolean allowNull) {
        if (env == null) {
            return new LinkedHashMap<>();
        }
        if (env.size() > MAX_VARIABLES) {
            throw ApiException.invalidField("env", "at most " + MAX_VARIABLES + " variables");
        }
        for (var e : env.entrySet()) {
            if (!NAME.matcher(e.getKey()).matches()) {
                throw ApiException.invalidField("env." + e.getKey(), "names are letters, digits and _, not starting "
                        + "with a digit");
            }
            if (e.getValue() == null && !allowNull) {
                throw ApiException.invalidField("env." + e.getKey(), "must be a string or {\"secret\": \"variable-name\"}");
            }
        }
        return new LinkedHashMap<>(env);
    }

    /** Binds one value of a request's {@code env}: a string, or {@code {"secret": "variable-name"}}. */
    final class Reader extends JsonDeserializer<EnvValue> {
        @Override
        public EnvValue deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String field = Json.fieldPath(p);
            JsonNode v = ctxt.readTree(p);
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
