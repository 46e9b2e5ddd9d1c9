package dev.hearth.server.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.hearth.api.ApiException;
import dev.hearth.api.Required;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.List;

/**
 * Refuses a request record that lacks a {@link Required} field, naming it by its path on the wire
 * ({@code ports[0].target}), as Jackson's own refusals do. Records inside records and lists are
 * checked too.
 */
final class RequiredFields {
    private static final PropertyNamingStrategies.NamingBase SNAKE =
            (PropertyNamingStrategies.NamingBase) PropertyNamingStrategies.SNAKE_CASE;

    private RequiredFields() {
    }

    static void check(Object value) {
        check(value, "");
    }

    private static void check(Object value, String path) {
        if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                check(list.get(i), path + "[" + i + "]");
            }
            return;
        }
        if (value == null || !value.getClass().isRecord()) {
            return;
        }
        for (RecordComponent component : value.getClass().getRecordComponents()) {
            String field = (path.isEmpty() ? "" : path + ".") + wireName(component);
            Object given = read(component, value);
            if (given == null && component.isAnnotationPresent(Required.class)) {
                throw ApiException.invalidField(field, "required");
            }
            check(given, field);
        }
    }

    private static String wireName(RecordComponent component) {
        var renamed = component.getAnnotation(JsonProperty.class);
        return renamed != null && !renamed.value().isEmpty() ? renamed.value() : SNAKE.translate(component.getName());
    }

    private static Object read(RecordComponent component, Object record) {
        try {
            var accessor = component.getAccessor();
            accessor.setAccessible(true);
            return accessor.invoke(record);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + component, e);
        }
    }
}
