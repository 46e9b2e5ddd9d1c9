package dev.hearth.api;

/**
 * The JSON Schemas of the fields a {@link WireSchema} names: each says what its parser in the service
 * accepts (a field's {@code null}, where it means something, is added by the document for every
 * field that may be null).
 */
public final class WireSchemas {
    /** {@code NAME: "value"} or {@code NAME: {"secret": "variable"}}. */
    public static final String ENV = """
            {"type": "object", "additionalProperties": {"oneOf": [{"type": "string"}, {"$ref": "#/components/schemas/SecretRef"}]}}""";
    /** As {@link #ENV}; a {@code null} value removes the variable (PATCH). */
    public static final String ENV_PATCH = """
            {"type": "object", "additionalProperties": {"oneOf": [{"type": "string"}, {"$ref": "#/components/schemas/SecretRef"}, {"type": "null"}]}}""";
    /** An argument vector; {@code null} is the image's. */
    public static final String ARGV = """
            {"type": "array", "items": {"type": "string"}, "maxItems": 256}""";
    /** A PATCH's labels: a {@code null} value removes the label. */
    public static final String LABELS_PATCH = """
            {"type": "object", "additionalProperties": {"type": ["string", "null"]}}""";
    /** Rows of values as text, a SQL NULL as null. */
    public static final String SQL_ROWS = """
            {"type": "array", "items": {"type": "array", "items": {"type": ["string", "null"]}}}""";
    public static final String INSTANT = """
            {"type": "string", "format": "date-time"}""";

    private WireSchemas() {
    }
}
