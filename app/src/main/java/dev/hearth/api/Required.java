package dev.hearth.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A field of a request record that must be given (and not {@code null}): the OpenAPI document lists it
 * as required, and a request without it is refused with 400 naming the field before any service sees
 * it. The one place the rule is written. On an answer's record: a field that is never {@code null}
 * (the document says so, and the test suite's check of every answer holds the server to it).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
public @interface Required {
}
