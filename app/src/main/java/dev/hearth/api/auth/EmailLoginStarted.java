package dev.hearth.api.auth;

import java.time.Instant;

public record EmailLoginStarted(String email, Instant expiresAt) {
}
