package dev.hearth.api.access;

public record UpdateAccess(String role, String name, String description) {
}
