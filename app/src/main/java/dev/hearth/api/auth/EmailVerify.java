package dev.hearth.api.auth;

import dev.hearth.api.Required;

public record EmailVerify(@Required String email, @Required String code) {
}
