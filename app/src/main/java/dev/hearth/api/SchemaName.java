package dev.hearth.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The name a wire record has in the OpenAPI document (and so in clients generated from it) when its
 * Java name would not do: {@code ComputerView} is a {@code Computer} to a client.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface SchemaName {
    String value();
}
