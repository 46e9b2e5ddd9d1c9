package dev.hearth.api.queries;

import dev.hearth.api.Required;

public record CreateQuery(@Required String name, @Required String sql) {
}
