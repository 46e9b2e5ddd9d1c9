package dev.hearth.api;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.util.function.Function;

/**
 * A request field that tells three things apart: absent (keep what is), {@code null} (clear it:
 * the image's command, no auto-sleep, no lease) and a value. Bound by {@link PatchDeserializer};
 * the document shows it as its value's schema or null.
 */
@JsonDeserialize(using = PatchDeserializer.class)
public sealed interface Patch<T> {
    /** Absent from the request. */
    record Keep<T>() implements Patch<T> {
    }

    /** Given as JSON null. */
    record Clear<T>() implements Patch<T> {
    }

    record Set<T>(T value) implements Patch<T> {
    }

    static <T> Patch<T> keep() {
        return new Keep<>();
    }

    static <T> Patch<T> clear() {
        return new Clear<>();
    }

    static <T> Patch<T> set(T value) {
        return new Set<>(value);
    }

    /** A record's field built in code rather than bound: Java's null is absent. */
    static <T> Patch<T> orKeep(Patch<T> given) {
        return given == null ? keep() : given;
    }

    default boolean given() {
        return !(this instanceof Keep);
    }

    /** {@code current} when absent, {@code cleared} when null, else the value made by {@code check}. */
    default <R> R apply(R current, R cleared, Function<T, R> check) {
        return switch (this) {
            case Keep<T> k -> current;
            case Clear<T> c -> cleared;
            case Set<T> s -> check.apply(s.value());
        };
    }
}
