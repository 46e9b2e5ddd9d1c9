package dev.hearth.server.tenancy;

/** The authenticated principal of a request and the credential its token was issued for. */
public record Caller(Principal principal, Credential credential) {

    /** What an access token was issued for; revoking it ends the token at once. */
    public sealed interface Credential {
    }

    /** A private key of a key principal (RFC 7523 assertion). */
    public record KeyCredential(String keyId) implements Credential {
    }

    /** An email login session. */
    public record SessionCredential(String sessionId) implements Credential {
    }

    public String id() {
        return principal.id();
    }
}
