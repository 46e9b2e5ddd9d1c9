package dev.hearth.api.auth;

import dev.hearth.api.Required;

public record RefreshToken(@Required String refreshToken) {
}
