package dev.hearth.api.variables;

import dev.hearth.api.Required;

public record CreateVariable(@Required String name, @Required String value) {
}
