package dev.hearth.api.auth;

/** The token response of RFC 6749. */
public record TokenResponse(String accessToken, String tokenType, long expiresIn) {
}
