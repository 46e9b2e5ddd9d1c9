package dev.hearth.server.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.hearth.api.Json;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Values kept as JSON text in a column: null is SQL NULL, and a row that does not parse is a store error. */
public final class StoredJson {
    private StoredJson() {
    }

    public static String text(Object value) {
        try {
            return value == null ? null : Json.mapper().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot store " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    public static <T> T read(ResultSet rs, String column, Class<T> type) throws SQLException {
        String text = rs.getString(column);
        try {
            return text == null ? null : Json.mapper().readValue(text, type);
        } catch (JsonProcessingException e) {
            throw malformed(rs, column, e);
        }
    }

    public static <T> T read(ResultSet rs, String column, TypeReference<T> type) throws SQLException {
        String text = rs.getString(column);
        try {
            return text == null ? null : Json.mapper().readValue(text, type);
        } catch (JsonProcessingException e) {
            throw malformed(rs, column, e);
        }
    }

    private static SQLException malformed(ResultSet rs, String column, JsonProcessingException e) throws SQLException {
        return new SQLException("row " + rs.getString("id") + " holds malformed JSON in " + column, e);
    }
}
