package dev.hearth.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.stream.Collectors;

/** A Java type as the API names what a field must be: "a string", "an array", never a class name. */
final class WireTypes {
    private WireTypes() {
    }

    static String describe(Class<?> type) {
        if (CharSequence.class.isAssignableFrom(type) || type == Character.class || type == char.class) {
            return "a string";
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class
                || type == Short.class || type == short.class) {
            return "a whole number";
        }
        if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        if (type == Instant.class) {
            return "a timestamp (ISO 8601, e.g. 2026-11-21T06:01:19Z)";
        }
        if (type.isEnum()) {
            return "one of " + Arrays.stream(type.getEnumConstants()).map(WireTypes::wire)
                    .collect(Collectors.joining(", "));
        }
        if (Map.class.isAssignableFrom(type) || type.isRecord() || JsonNode.class.isAssignableFrom(type)) {
            return "an object";
        }
        return "a value of another type";
    }

    /** As the constant is written ({@code @JsonValue}: on-failure, not on_failure). */
    private static String wire(Object constant) {
        return Json.mapper().valueToTree(constant).asText();
    }
}
