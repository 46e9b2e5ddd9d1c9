package dev.hearth.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A field of a {@link HearthServerTest} class that its extension fills before any {@code @BeforeAll}
 * method runs: a {@link TestServer} field with the class's server, a {@code HearthClient} field with
 * that server's admin.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Injected {
}
