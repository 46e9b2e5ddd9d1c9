package dev.hearth.server.access;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.access.ApiKeyState;
import dev.hearth.api.access.ApiKeyView;
import dev.hearth.api.access.CreateApiKey;
import dev.hearth.api.tenancy.Role;
import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Membership;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The rules of API keys: anyone with a role in a workspace may make keys for themselves there, at
 * most their own role; a key's owner or an admin may revoke it. A key is checked on every request,
 * so a revoked or expired key, or one whose principal lost its role, is refused at once.
 */
public final class ApiKeys {
    /** A new key: the secret is in this answer only. */
    public record Created(ApiKeyView apiKey, String secret) {
        public Created redacted() {
            return new Created(apiKey, null);
        }
    }

    private static final int MAX_DAYS = 3650;

    private final Jdbi jdbi;
    private final ApiKeyStore store;
    private final AccessStore access;
    private final Clock clock;

    public ApiKeys(Jdbi jdbi, ApiKeyStore store, AccessStore access, Clock clock) {
        this.jdbi = jdbi;
        this.store = store;
        this.access = access;
        this.clock = clock;
    }

    public Created create(Caller caller, Membership membership, CreateApiKey request) {
        if (caller.boundTo().isPresent()) { // else a leaked key could outlive its revocation in keys it made
            throw new ApiException(ErrorCode.FORBIDDEN, "an API key may not make API keys; make them with an "
                    + "access token (hearth api-keys create)");
        }
        String name = Validate.dnsLabel("name", request.name());
        Role role = request.role() == null ? membership.role() : Role.parse(request.role())
                .orElseThrow(() -> ApiException.invalidField("role", "must be viewer, editor or admin"));
        if (!membership.role().atLeast(role)) {
            throw new ApiException(ErrorCode.FORBIDDEN, "a key may not have more than your own role ("
                    + membership.role().wire() + ")");
        }
        var now = clock.instant();
        var expires = Optional.ofNullable(request.expiresInDays())
                .map(days -> now.plus(Duration.ofDays(Validate.range("expires_in_days", days, 1, MAX_DAYS, 1))));
        String secret = Secrets.hexToken(ApiKey.SECRET_PREFIX);
        var key = new ApiKey(Ids.next(), membership.workspace().id(), caller.id(), name, role,
                secret.substring(0, 8), now, expires.orElse(null), null, null);
        jdbi.useTransaction(h -> store.insert(h, key, Secrets.sha256(secret)));
        return new Created(key.view(now), secret);
    }

    public Page<ApiKeyView> list(Membership membership, PageRequest page) {
        var rows = jdbi.withHandle(h -> store.page(h, membership.workspace().id(), page));
        return Page.of(rows, page.limit(), ApiKey::id).map(k -> k.view(clock.instant()));
    }

    public ApiKeyView get(Membership membership, String id) {
        return jdbi.withHandle(h -> find(h, membership, id)).view(clock.instant());
    }

    /** Revokes the key (its owner or an admin); a key revoked already is answered as it is. */
    public ApiKeyView revoke(Caller caller, Membership membership, String id) {
        return jdbi.inTransaction(h -> {
            var key = find(h, membership, id);
            if (!key.principal().equals(caller.id()) && membership.role() != Role.ADMIN) {
                throw new ApiException(ErrorCode.FORBIDDEN, "only the key's owner or an admin may revoke it");
            }
            var now = clock.instant();
            store.revoke(h, key.id(), now);
            return (key.revokedAt() == null ? key.revoked(now) : key).view(now);
        });
    }

    private ApiKey find(Handle h, Membership membership, String id) {
        return store.find(h, id).filter(k -> k.workspace().equals(membership.workspace().id()))
                .orElseThrow(() -> ApiException.notFound("API key " + id));
    }

    /**
     * The caller an API key's secret stands for; 401 for a secret no key has, a key revoked or
     * expired, or one whose principal no longer holds a role in its workspace.
     */
    public Caller authenticate(String secret, PrincipalStore principals) {
        return jdbi.withHandle(h -> {
            var key = store.findBySecret(h, Secrets.sha256(ApiKey.canonical(secret)))
                    .orElseThrow(() -> ApiException.unauthenticated("no API key has this secret"));
            return caller(h, key, principals);
        });
    }

    /** The caller of a token issued for an API key: the key is checked as when its secret is sent. */
    public Caller confirm(Handle h, String keyId, PrincipalStore principals) {
        var key = store.find(h, keyId).orElseThrow(() -> ApiException.unauthenticated("this API key no longer exists"));
        return caller(h, key, principals);
    }

    private Caller caller(Handle h, ApiKey key, PrincipalStore principals) {
        var now = clock.instant();
        if (key.state(now) != ApiKeyState.ACTIVE) {
            throw ApiException.unauthenticated("this API key is " + key.state(now).wire());
        }
        var principal = principals.find(h, key.principal())
                .orElseThrow(() -> ApiException.unauthenticated("this API key's principal no longer exists"));
        if (!store.workspaceLive(h, key.workspace())) {
            throw ApiException.unauthenticated("this API key's workspace was deleted");
        }
        if (access.find(h, key.workspace(), key.principal()).isEmpty()) {
            throw ApiException.unauthenticated("this API key's principal no longer has a role in its workspace");
        }
        touch(h, key, now);
        return new Caller(principal, new Caller.ApiKeyCredential(key.id(), key.workspace(), key.role()));
    }

    // last_used_at moves at most once a minute per key: not one write per request.
    private void touch(Handle h, ApiKey key, Instant now) {
        if (key.lastUsedAt() == null || key.lastUsedAt().isBefore(now.minus(Duration.ofMinutes(1)))) {
            store.touch(h, key.id(), now);
        }
    }
}
