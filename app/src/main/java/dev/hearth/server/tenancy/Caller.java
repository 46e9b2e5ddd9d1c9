package dev.hearth.server.tenancy;

import dev.hearth.api.tenancy.Role;

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

    /** An API key: it acts in {@code workspace} only, with at most {@code role}. */
    public record ApiKeyCredential(String keyId, String workspace, Role role) implements Credential {
    }

    /** The one workspace the caller may act in, when its credential is bound to one (an API key). */
    public java.util.Optional<ApiKeyCredential> boundTo() {
        return credential instanceof ApiKeyCredential k ? java.util.Optional.of(k) : java.util.Optional.empty();
    }

    /** Whether it acts as the server's operator: an operator signed in by key or email, never by an API key (bound to one workspace). */
    public boolean operates() {
        return principal.operator() && !(credential instanceof ApiKeyCredential);
    }

    public String id() {
        return principal.id();
    }
}
