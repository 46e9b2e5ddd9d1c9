package dev.hearth.server.access;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.access.AccessView;
import dev.hearth.api.access.GrantAccess;
import dev.hearth.api.access.KeyFile;
import dev.hearth.api.access.PrincipalKeyView;
import dev.hearth.api.access.RotateKey;
import dev.hearth.api.access.UpdateAccess;
import dev.hearth.api.tenancy.Role;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.crypto.KeyMaterial;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Principal;
import dev.hearth.server.workspaces.WorkspaceStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The rules of access: who holds which role in a workspace, private-key principals and their keys.
 * A workspace always keeps at least one admin.
 */
public final class AccessService {
    /** The answer to a grant or a key rotation: key and key file only for private-key principals. */
    public record Granted(AccessView access, PrincipalKeyView key, KeyFile keyFile) {
        public Granted redacted() {
            return new Granted(access, key, null);
        }
    }

    private record NewKey(PrincipalKey key, KeyFile file) {
    }

    private static final int DEFAULT_KEY_DAYS = 365;
    private static final int MAX_KEY_DAYS = 3650;

    private final Jdbi jdbi;
    private final PrincipalStore principals;
    private final AccessStore access;
    private final WorkspaceStore workspaces;
    private final Clock clock;
    private final String audience;
    private final String tokenUrl;

    public AccessService(Jdbi jdbi, PrincipalStore principals, AccessStore access, WorkspaceStore workspaces,
                         Clock clock, String audience, String tokenUrl) {
        this.jdbi = jdbi;
        this.principals = principals;
        this.access = access;
        this.workspaces = workspaces;
        this.clock = clock;
        this.audience = audience;
        this.tokenUrl = tokenUrl;
    }

    /** The creator of a new workspace becomes its admin, in the transaction that creates it. */
    public void founded(Handle h, Workspace workspace, Caller creator, Instant at) {
        access.insert(h, new Grant(workspace.id(), creator.id(), Role.ADMIN, at, at));
    }

    public Granted grant(Caller caller, Workspace workspace, GrantAccess request) {
        Role role = role(request.role());
        if (request.email() != null) {
            if (request.name() != null || request.publicKey() != null || request.description() != null
                    || request.expiresInDays() != null) {
                throw ApiException.invalidField("email", "give email (a person) or name (a private-key principal), not both");
            }
            return grantEmail(workspace, Validate.email("email", request.email()), role);
        }
        if (request.name() == null) {
            throw ApiException.invalidFields(Map.of("email", "give email for a person",
                    "name", "or name for a private-key principal"));
        }
        return grantKey(caller, workspace, request, role);
    }

    private Granted grantEmail(Workspace workspace, String email, Role role) {
        Instant now = now();
        return jdbi.inTransaction(h -> {
            var principal = principals.findByEmail(h, email).orElseGet(() -> newEmailPrincipal(h, email, now));
            if (access.find(h, workspace.id(), principal.id()).isPresent()) {
                throw ApiException.conflict(email + " already has access to this workspace; change the role with PATCH");
            }
            var grant = new Grant(workspace.id(), principal.id(), role, now, now);
            access.insert(h, grant);
            return new Granted(view(h, principal, grant), null, null);
        });
    }

    /** The principal of an email address, created on first use (a grant or a first login). */
    public Principal emailPrincipal(Handle h, String email) {
        return principals.findByEmail(h, email).orElseGet(() -> newEmailPrincipal(h, email, now()));
    }

    private Principal newEmailPrincipal(Handle h, String email, Instant now) {
        var principal = new Principal(Ids.next(), Principal.Auth.EMAIL, email, email, "", null, now, now, false);
        principals.insert(h, principal);
        return principal;
    }

    private Granted grantKey(Caller caller, Workspace workspace, GrantAccess request, Role role) {
        String name = Validate.dnsLabel("name", request.name());
        String description = Validate.text("description", request.description(), 1000);
        Instant now = now();
        var principal = new Principal(Ids.next(), Principal.Auth.KEY, null, name,
                description == null ? "" : description, caller.id(), now, now, false);
        var newKey = newKey(principal.id(), caller.id(), request.publicKey(), request.expiresInDays());
        return jdbi.inTransaction(h -> {
            principals.insert(h, principal);
            principals.insertKey(h, newKey.key());
            var grant = new Grant(workspace.id(), principal.id(), role, now, now);
            access.insert(h, grant);
            return new Granted(view(h, principal, grant), newKey.key().view(), newKey.file());
        });
    }

    /** Creates the first principal of an empty store: a key principal whose key file the operator gets. */
    public Optional<KeyFile> bootstrapAdmin() {
        Instant now = now();
        var principal = new Principal(Ids.next(), Principal.Auth.KEY, null, "admin",
                "created on first start", null, now, now, true);
        var newKey = newKey(principal.id(), principal.id(), null, DEFAULT_KEY_DAYS);
        return jdbi.inTransaction(h -> {
            if (principals.count(h) > 0) {
                return Optional.<KeyFile>empty();
            }
            principals.insert(h, principal);
            principals.insertKey(h, newKey.key());
            return Optional.of(newKey.file());
        });
    }

    public Page<AccessView> list(Workspace workspace, PageRequest page) {
        return jdbi.withHandle(h -> {
            var rows = access.page(h, workspace.id(), page);
            return Page.of(rows, page.limit(), Grant::principal).map(g -> view(h, principal(h, g.principal()), g));
        });
    }

    public AccessView get(Workspace workspace, String principalId) {
        return jdbi.withHandle(h -> {
            var grant = grantOf(h, workspace, principalId);
            return view(h, principal(h, principalId), grant);
        });
    }

    public AccessView update(Workspace workspace, String principalId, UpdateAccess request) {
        if (request.role() == null && request.name() == null && request.description() == null) {
            throw ApiException.invalidField("role", "give role, or name/description for a private-key principal");
        }
        Role role = request.role() == null ? null : role(request.role());
        Instant now = now();
        return jdbi.inTransaction(h -> {
            workspaces.lock(h, workspace.id());
            var grant = grantOf(h, workspace, principalId);
            var principal = principal(h, principalId);
            if (role != null && role != grant.role()) {
                requireAnotherAdmin(h, grant, workspace);
                access.updateRole(h, workspace.id(), principalId, role, now);
            }
            if (request.name() != null || request.description() != null) {
                principal = renamed(h, principal, request, now);
            }
            return view(h, principal, grantOf(h, workspace, principalId));
        });
    }

    private Principal renamed(Handle h, Principal p, UpdateAccess request, Instant now) {
        if (p.auth() != Principal.Auth.KEY) {
            throw ApiException.invalidField(request.name() != null ? "name" : "description",
                    "only private-key principals have a name and description to change");
        }
        String name = request.name() == null ? p.name() : Validate.dnsLabel("name", request.name());
        String description = request.description() == null ? p.description()
                : Validate.text("description", request.description(), 1000);
        var updated = new Principal(p.id(), p.auth(), p.email(), name, description, p.createdBy(), p.createdAt(), now,
                p.operator());
        principals.update(h, updated);
        return updated;
    }

    /** Removes the principal's role; a key principal left with no workspace also loses its key. */
    public AccessView revoke(Workspace workspace, String principalId) {
        Instant now = now();
        return jdbi.inTransaction(h -> {
            workspaces.lock(h, workspace.id());
            var grant = grantOf(h, workspace, principalId);
            requireAnotherAdmin(h, grant, workspace);
            var principal = principal(h, principalId);
            access.delete(h, workspace.id(), principalId);
            if (principal.auth() == Principal.Auth.KEY && access.countWorkspaces(h, principalId) == 0) {
                principals.revokeKeys(h, principalId, now);
            }
            return view(h, principal, grant);
        });
    }

    /** Issues a new key for a key principal and revokes its previous ones. */
    public Granted rotateKey(Caller caller, Workspace workspace, String principalId, RotateKey request) {
        var newKey = newKey(principalId, caller.id(), request.publicKey(), request.expiresInDays());
        return jdbi.inTransaction(h -> {
            var grant = grantOf(h, workspace, principalId);
            var principal = keyPrincipal(h, principalId);
            principals.revokeKeys(h, principalId, newKey.key().createdAt());
            principals.insertKey(h, newKey.key());
            return new Granted(view(h, principal, grant), newKey.key().view(), newKey.file());
        });
    }

    public AccessView revokeKey(Workspace workspace, String principalId) {
        Instant now = now();
        return jdbi.inTransaction(h -> {
            var grant = grantOf(h, workspace, principalId);
            var principal = keyPrincipal(h, principalId);
            principals.revokeKeys(h, principalId, now);
            return view(h, principal, grant);
        });
    }

    private void requireAnotherAdmin(Handle h, Grant grant, Workspace workspace) {
        if (grant.role() == Role.ADMIN && access.countAdmins(h, workspace.id()) <= 1) {
            throw new ApiException(ErrorCode.LAST_ADMIN, "this is the last admin of workspace " + workspace.name()
                    + "; make someone else admin first");
        }
    }

    private NewKey newKey(String principalId, String createdBy, String publicKey, Integer days) {
        int lifetime = Validate.range("expires_in_days", days, 1, MAX_KEY_DAYS, DEFAULT_KEY_DAYS);
        String keyId = Ids.next();
        Instant now = now();
        String jwk;
        String privatePem = null;
        if (publicKey != null) {
            try {
                jwk = KeyMaterial.parsePublic(Validate.maxLength("public_key", publicKey, 16384), keyId).toJSONString();
            } catch (IllegalArgumentException e) {
                throw ApiException.invalidField("public_key", e.getMessage());
            }
        } else {
            var pair = KeyMaterial.generate();
            jwk = KeyMaterial.publicJwk(pair.getPublic(), keyId).toJSONString();
            privatePem = KeyMaterial.privatePem(pair.getPrivate());
        }
        var key = new PrincipalKey(keyId, principalId, jwk, publicKey != null, createdBy, now,
                now.plus(Duration.ofDays(lifetime)), null, null);
        return new NewKey(key, new KeyFile(principalId, principalId, keyId, audience, tokenUrl, privatePem));
    }

    private Grant grantOf(Handle h, Workspace workspace, String principalId) {
        return access.find(h, workspace.id(), principalId)
                .orElseThrow(() -> ApiException.notFound("principal " + principalId + " in this workspace"));
    }

    public Principal principal(Handle h, String id) {
        return principals.find(h, id).orElseThrow(() -> ApiException.notFound("principal " + id));
    }

    private Principal keyPrincipal(Handle h, String id) {
        var principal = principal(h, id);
        if (principal.auth() != Principal.Auth.KEY) {
            throw ApiException.conflict("principal " + id + " signs in by email and has no key");
        }
        return principal;
    }

    private AccessView view(Handle h, Principal principal, Grant grant) {
        var key = principal.auth() == Principal.Auth.KEY ? principals.currentKey(h, principal.id()) : Optional.<PrincipalKey>empty();
        return new AccessView(principal.view(), grant.role(), principal.description(),
                key.map(PrincipalKey::view).orElse(null),
                key.map(k -> k.state(clock.instant()).name().toLowerCase(Locale.ROOT)).orElse(null),
                grant.createdAt());
    }

    private static Role role(String role) {
        Validate.required("role", role);
        return Role.parse(role).orElseThrow(() -> ApiException.invalidField("role", "must be admin, editor or viewer"));
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
