package dev.hearth.api;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The one JSON mapping of the wire: snake_case fields, ISO-8601 instants, strict on input. */
public final class Json {
    /** How deep a body may nest: Hearth's own bodies nest three levels at most. */
    public static final int MAX_DEPTH = 64;

    private static final ObjectMapper MAPPER = strictScalars(JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build()).build())
            .addModule(new JavaTimeModule())
            .addModule(new SimpleModule().addSerializer(Instant.class, new WireInstant()))
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            // No element of a list is null ("ports": [null] is refused, not handed to a service as a null).
            .withConfigOverride(List.class, o -> o.setSetterInfo(JsonSetter.Value.forContentNulls(Nulls.FAIL)))
            .withConfigOverride(Set.class, o -> o.setSetterInfo(JsonSetter.Value.forContentNulls(Nulls.FAIL)))
            .build());

    /**
     * Every instant on the wire in UTC with exactly milliseconds ({@code 2026-11-21T06:01:19.645Z}),
     * as the reference says, whatever its source kept (the agent's clock has nanoseconds, the store
     * milliseconds; the JDK's form drops a zero fraction).
     */
    private static final class WireInstant extends StdSerializer<Instant> {
        private static final DateTimeFormatter FORMAT = new DateTimeFormatterBuilder().appendInstant(3).toFormatter();

        WireInstant() {
            super(Instant.class);
        }

        @Override
        public void serialize(Instant value, JsonGenerator out, SerializerProvider provider) throws IOException {
            out.writeString(FORMAT.format(value));
        }
    }

    /** A number or boolean where a string belongs is an error, not silently turned into text. */
    private static ObjectMapper strictScalars(ObjectMapper mapper) {
        var textual = mapper.coercionConfigFor(LogicalType.Textual);
        for (var shape : new CoercionInputShape[] {CoercionInputShape.Integer, CoercionInputShape.Float,
                CoercionInputShape.Boolean}) {
            textual.setCoercion(shape, CoercionAction.Fail);
        }
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        return mapper;
    }

    /** A JSON object as a plain map. */
    public static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };

    private Json() {
    }

    /** Where the parser is, as the API names a field: {@code env.NAME}, {@code ports[0].target}. */
    public static String fieldPath(com.fasterxml.jackson.core.JsonParser p) {
        var names = new java.util.ArrayDeque<String>();
        for (var at = p.getParsingContext(); at != null; at = at.getParent()) {
            if (at.getCurrentName() != null) {
                names.push(at.getCurrentName());
            } else if (at.inArray() && at.getCurrentIndex() >= 0) {
                names.push("[" + at.getCurrentIndex() + "]");
            }
        }
        return String.join(".", names).replace(".[", "[");
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
