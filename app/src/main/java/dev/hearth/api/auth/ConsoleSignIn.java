package dev.hearth.api.auth;

/** A mailed code ({@code email} and {@code code}), an {@code api_key}, or a key file's signed {@code assertion}. */
public record ConsoleSignIn(String email, String code, String apiKey, String assertion) {
}
