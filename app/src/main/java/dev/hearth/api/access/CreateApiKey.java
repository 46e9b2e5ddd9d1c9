package dev.hearth.api.access;

import dev.hearth.api.Required;

public record CreateApiKey(@Required String name, String role, Integer expiresInDays) {
}
