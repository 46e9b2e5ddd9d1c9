package dev.hearth.api.access;

public record RotateKey(String publicKey, Integer expiresInDays) {
}
