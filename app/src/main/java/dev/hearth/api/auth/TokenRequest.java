package dev.hearth.api.auth;

import dev.hearth.api.Required;

public record TokenRequest(@Required String grantType, @Required String assertion) {
}
