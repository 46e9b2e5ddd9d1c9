package dev.hearth.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The JSON Schema of a field its Java type cannot say: one held as a {@code JsonNode} so that a PATCH
 * tells an absent field from {@code null}, or a choice of shapes. One of {@link WireSchemas}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
public @interface WireSchema {
    String value();
}
