package dev.hearth.api.variables;

public record UpdateVariable(String name, String value) {
}
