package dev.hearth.server.openapi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.api.Patch;
import dev.hearth.api.Required;
import dev.hearth.api.SchemaName;
import dev.hearth.api.WireSchema;
import dev.hearth.server.http.Contract.Shape;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of wire values, seen the way the API's Jackson mapping
 * writes them: property names after snake_case and {@code @JsonProperty}, ignored fields left out,
 * {@code @JsonValue} types as the value they write. Records become named components.
 */
final class Schemas {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String WIRE_PACKAGE = "dev.hearth.api";
    private static final Set<String> VAGUE_NAMES = Set.of("View", "Result", "Request", "Config", "Started", "Tokens",
            "Settings", "Status", "Output", "Error");
    private static final Set<JsonInclude.Include> OMITS_NULL = Set.of(JsonInclude.Include.NON_NULL,
            JsonInclude.Include.NON_ABSENT, JsonInclude.Include.NON_EMPTY, JsonInclude.Include.NON_DEFAULT);

    private final ObjectMapper mapper = Json.mapper();
    private final Map<String, JsonNode> components = new TreeMap<>();
    private final Map<Class<?>, String> names = new HashMap<>();
    private boolean input;

    Schemas() {
        // What an env value that names a variable looks like (WireSchemas.ENV refers to it).
        var secret = NODES.objectNode();
        secret.set("secret", type("string"));
        components.put("SecretRef", closedObject(secret, NODES.arrayNode().add("secret")));
    }

    Map<String, JsonNode> components() {
        return components;
    }

    /**
     * A request body's schema: only its {@link Required} fields must be there, where an answer's fields
     * are all there.
     */
    ObjectNode input(Shape shape) {
        input = true;
        try {
            return of(shape);
        } finally {
            input = false;
        }
    }

    ObjectNode of(Shape shape) {
        return switch (shape) {
            case Shape.Of value -> {
                var schema = of(mapper.constructType(value.type()));
                yield value.nullable() ? orNull(schema) : schema;
            }
            case Shape.ArrayOf array -> array(of(array.item()));
            case Shape.Fields object -> fields(object.fields());
            case Shape.OneOf one -> {
                var choices = NODES.arrayNode();
                one.choices().forEach(c -> choices.add(of(c)));
                yield NODES.objectNode().set("oneOf", choices);
            }
            case Shape.Error error -> ref("Error");
            case Shape.Any any -> NODES.objectNode().put("type", "object");
        };
    }

    static ObjectNode ref(String component) {
        return NODES.objectNode().put("$ref", "#/components/schemas/" + component);
    }

    static ObjectNode type(String type) {
        return NODES.objectNode().put("type", type);
    }

    static ObjectNode array(ObjectNode items) {
        return type("array").set("items", items);
    }

    private ObjectNode fields(Map<String, Shape> fields) {
        var properties = NODES.objectNode();
        var required = NODES.arrayNode();
        fields.forEach((name, shape) -> {
            properties.set(name, of(shape));
            required.add(name);
        });
        return closedObject(properties, required);
    }

    static ObjectNode closedObject(ObjectNode properties, ArrayNode required) {
        var schema = type("object");
        schema.set("properties", properties);
        schema.set("required", required);
        schema.put("additionalProperties", false);
        return schema;
    }

    /** The value or JSON null. */
    static ObjectNode orNull(ObjectNode schema) {
        var choices = NODES.arrayNode().add(schema).add(type("null"));
        return NODES.objectNode().set("anyOf", choices);
    }

    private ObjectNode of(JavaType type) {
        Class<?> raw = type.getRawClass();
        var scalar = scalar(raw);
        if (scalar != null) {
            return scalar;
        }
        if (raw == Patch.class) {
            return of(type.containedType(0)); // absent, null (the property's own) or the value
        }
        if (raw == Optional.class) {
            return orNull(of(type.containedType(0)));
        }
        if (type.isArrayType() || type.isCollectionLikeType()) {
            return array(of(type.getContentType()));
        }
        if (type.isMapLikeType()) {
            return type("object").set("additionalProperties", of(type.getContentType()));
        }
        if (raw.isEnum()) {
            return enumeration(onTheWire(raw));
        }
        var valueAccessor = names.containsKey(raw) ? null
                : mapper.getSerializationConfig().introspect(type).findJsonValueAccessor();
        if (valueAccessor != null) {
            return of(valueAccessor.getType()); // written as its value: no component of its own
        }
        return ref(component(type));
    }

    /** The contract's types have one home, shared with the client: a type from elsewhere is a mistake. */
    private static Class<?> onTheWire(Class<?> raw) {
        if (!raw.getPackageName().startsWith(WIRE_PACKAGE)) {
            throw new IllegalStateException(raw.getName() + " is on the wire but not in " + WIRE_PACKAGE);
        }
        return raw;
    }

    private static ObjectNode scalar(Class<?> raw) {
        if (raw == String.class || raw == UUID.class || raw == URI.class || Path.class.isAssignableFrom(raw)
                || raw == byte[].class) {
            return type("string");
        }
        if (raw == boolean.class || raw == Boolean.class) {
            return type("boolean");
        }
        if (raw == int.class || raw == long.class || raw == short.class || raw == Integer.class || raw == Long.class
                || raw == Short.class || raw == BigInteger.class) {
            return type("integer");
        }
        if (raw == double.class || raw == float.class || raw == Double.class || raw == Float.class
                || raw == BigDecimal.class || raw == Duration.class) {
            return type("number");
        }
        if (raw == Instant.class || raw == OffsetDateTime.class) {
            return type("string").put("format", "date-time");
        }
        if (JsonNode.class.isAssignableFrom(raw) || raw == Object.class) {
            return NODES.objectNode();
        }
        return null;
    }

    private ObjectNode enumeration(Class<?> raw) {
        var values = NODES.arrayNode();
        for (Object constant : raw.getEnumConstants()) {
            values.add(mapper.valueToTree(constant).asText());
        }
        return type("string").set("enum", values);
    }

    /** The component's name, made (once) from the record's properties or its {@code @JsonValue}. */
    private String component(JavaType type) {
        Class<?> raw = type.getRawClass();
        String known = names.get(raw);
        if (known != null) {
            return known;
        }
        String name = name(onTheWire(raw));
        names.put(raw, name);
        components.put(name, NODES.objectNode());
        var description = mapper.getSerializationConfig().introspect(type);
        var properties = NODES.objectNode();
        var required = NODES.arrayNode();
        for (BeanPropertyDefinition property : description.findProperties()) {
            if (!property.couldSerialize()) {
                continue;
            }
            JavaType propertyType = property.getPrimaryType();
            var inclusion = property.findInclusion();
            boolean omitsNull = inclusion != null && OMITS_NULL.contains(inclusion.getValueInclusion());
            boolean mustBeGiven = annotation(property, Required.class) != null;
            var given = annotation(property, WireSchema.class);
            var schema = given != null ? given(given.value()) : of(propertyType);
            properties.set(property.getName(), propertyType.isPrimitive() || omitsNull || mustBeGiven ? schema
                    : orNull(schema));
            if (mustBeGiven || !omitsNull && !input) {
                required.add(property.getName());
            }
        }
        components.put(name, closedObject(properties, required));
        return name;
    }

    private static <A extends Annotation> A annotation(BeanPropertyDefinition property, Class<A> type) {
        for (AnnotatedMember member : new AnnotatedMember[] {property.getField(), property.getGetter(),
                property.getConstructorParameter()}) {
            if (member != null && member.hasAnnotation(type)) {
                return member.getAnnotation(type);
            }
        }
        return null;
    }

    private ObjectNode given(String schema) {
        try {
            return (ObjectNode) mapper.readTree(schema);
        } catch (IOException e) {
            throw new IllegalStateException("a @WireSchema that is not JSON: " + schema, e);
        }
    }

    /** {@code @SchemaName}, else the simple name without a {@code View} suffix ({@code ComputerView}: {@code Computer}). */
    private String name(Class<?> raw) {
        var named = raw.getAnnotation(SchemaName.class);
        if (named != null) {
            return unique(named.value(), raw);
        }
        String name = raw.getSimpleName();
        Class<?> outer = raw.getEnclosingClass();
        if (outer != null && (VAGUE_NAMES.contains(name) || components.containsKey(name))) {
            name = outer.getSimpleName() + name;
        }
        if (name.endsWith("View") && name.length() > 4) { // how an object is shown is the object to a client
            name = name.substring(0, name.length() - 4);
        }
        return unique(name, raw);
    }

    private String unique(String name, Class<?> raw) {
        if (components.containsKey(name) || name.equals("Error")) {
            throw new IllegalStateException("two wire types named " + name + ": " + raw.getName());
        }
        return name;
    }
}
