package dev.hearth.api.access;

import dev.hearth.api.Required;

public record GrantAccess(String email, @Required String role, String name, String description, String publicKey,
                          Integer expiresInDays) {
}
