package dev.hearth.api.access;

/**
 * What a script needs to get tokens as a key principal. Returned once; for a supplied public key
 * (byok) {@code private_key} is null and the holder adds their own.
 */
public record KeyFile(String principal, String subject, String keyId, String audience, String tokenUrl,
                      String privateKey) {
}
