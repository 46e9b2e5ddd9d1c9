package dev.hearth.api.queries;

public record UpdateQuery(String name, String sql) {
}
