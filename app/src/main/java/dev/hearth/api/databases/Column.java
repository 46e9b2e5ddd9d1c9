package dev.hearth.api.databases;

public record Column(String name, String type) {
}
