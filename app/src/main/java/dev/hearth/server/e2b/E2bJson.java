package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * JSON as E2B speaks it: camelCase names as they come (no mapping), unknown fields ignored (its
 * clients send more than Hearth reads), times as RFC 3339 text. Hearth's own wire stays strict.
 */
final class E2bJson {
    static final ObjectMapper MAPPER = JsonMapper.builder().addModule(new JavaTimeModule())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private E2bJson() {
    }

    static ObjectNode object() {
        return NODES.objectNode();
    }
}
