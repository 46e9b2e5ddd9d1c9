package dev.hearth.api.auth;

import dev.hearth.api.Required;

public record EmailStart(@Required String email) {
}
