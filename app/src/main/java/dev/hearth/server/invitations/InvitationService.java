package dev.hearth.server.invitations;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.invitations.CreateInvitation;
import dev.hearth.api.invitations.InvitationState.Move;
import dev.hearth.api.invitations.InvitationState;
import dev.hearth.api.invitations.InvitationView;
import dev.hearth.api.tenancy.Role;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.access.AccessStore;
import dev.hearth.server.access.Grant;
import dev.hearth.server.limits.RateLimits;
import dev.hearth.server.store.Constraints;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.tenancy.Principal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The rules of invitations: an admin invites an address to a role; the person signed in with that
 * address accepts and holds the role at once. One pending invitation per address and workspace.
 */
public final class InvitationService {
    private final Jdbi jdbi;
    private final InvitationStore store;
    private final AccessStore access;
    private final InvitationMail mail;
    private final RateLimits rates;
    private final Clock clock;
    private final Duration lifetime;

    public InvitationService(Jdbi jdbi, InvitationStore store, AccessStore access, InvitationMail mail, Clock clock,
                             Duration lifetime, RateLimits rates) {
        this.rates = rates;
        this.jdbi = jdbi;
        this.store = store;
        this.access = access;
        this.mail = mail;
        this.clock = clock;
        this.lifetime = lifetime;
    }

    public InvitationView create(Caller caller, Workspace workspace, CreateInvitation request) {
        String email = Validate.email("email", request.email());
        Role role = Role.parse(Validate.required("role", request.role()))
                .orElseThrow(() -> ApiException.invalidField("role", "must be admin, editor or viewer"));
        Instant now = now();
        var invitation = new Invitation(Ids.next(), workspace.id(), email, role, InvitationState.PENDING, caller.id(), now,
                now, now.plus(lifetime), false, null, 0, null, null, null);
        Constraints.unique(() -> jdbi.inTransaction(h -> {
            var pending = store.pending(h, workspace.id(), email);
            if (pending.isPresent() && pending.get().state(now) == InvitationState.PENDING) {
                throw taken(email);
            }
            pending.ifPresent(old -> store.setState(h, old.id(), InvitationState.EXPIRED, now));
            store.insert(h, invitation);
            return invitation;
        }), () -> taken(email));
        mail.sendNow(invitation.id());
        return view(invitation.id());
    }

    public Page<InvitationView> list(Workspace workspace, String state, PageRequest page) {
        var filter = switch (state) {
            case "pending" -> InvitationStore.Filter.PENDING;
            case "expired" -> InvitationStore.Filter.EXPIRED;
            case "all" -> InvitationStore.Filter.ALL;
            default -> throw ApiException.invalidField("state", "must be pending, expired or all");
        };
        Instant now = now();
        var rows = jdbi.withHandle(h -> store.page(h, workspace.id(), filter, now, page));
        return Page.of(rows, page.limit(), Invitation::id).map(i -> i.view(now));
    }

    public InvitationView get(String id) {
        return view(id);
    }

    /** A new expiry and a new mail; only for invitations not yet accepted or revoked. */
    public InvitationView resend(String id) {
        Instant now = now();
        jdbi.useTransaction(h -> {
            var invitation = find(h, id);
            var state = invitation.state(now);
            if (!state.allows(Move.RESEND)) {
                throw ApiException.conflict("invitation " + id + " is " + state + "; invite again instead");
            }
            if (invitation.storedState() != InvitationState.PENDING) {
                throw ApiException.conflict("invitation " + id + " was replaced by a newer one; resend that");
            }
            rates.resend(id);
            store.renew(h, id, now.plus(lifetime), now);
        });
        mail.sendNow(id);
        return view(id);
    }

    public InvitationView revoke(String id) {
        Instant now = now();
        jdbi.useTransaction(h -> {
            var invitation = find(h, id);
            if (!invitation.state(now).allows(Move.REVOKE)) {
                throw ApiException.conflict("invitation " + id + " was accepted; remove the access instead");
            }
            store.setState(h, id, InvitationState.REVOKED, now);
        });
        return view(id);
    }

    /**
     * Accepts for the signed-in email principal the invitation was sent to; anyone else is told it
     * does not exist. A principal who already holds a role keeps the stronger of the two.
     */
    public InvitationView accept(Caller caller, String id) {
        if (caller.boundTo().isPresent()) {
            throw new ApiException(ErrorCode.FORBIDDEN, "an API key cannot accept invitations; sign in by email");
        }
        Instant now = now();
        jdbi.useTransaction(h -> {
            var invitation = store.find(h, id).filter(i -> invitee(caller, i))
                    .orElseThrow(() -> ApiException.notFound("invitation " + id));
            var state = invitation.state(now);
            if (state == InvitationState.ACCEPTED && caller.id().equals(invitation.acceptedBy())) {
                return;
            }
            if (!state.allows(Move.ACCEPT)) {
                throw new ApiException(ErrorCode.CONFLICT, "invitation " + id + " is " + state
                        + " and cannot be accepted; ask for a new one", Map.of("state", state.wire()));
            }
            grant(h, invitation, caller, now);
            store.accept(h, id, caller.id(), now);
        });
        return view(id);
    }

    private void grant(Handle h, Invitation invitation, Caller caller, Instant now) {
        var existing = access.find(h, invitation.workspace(), caller.id());
        if (existing.isEmpty()) {
            access.insert(h, new Grant(invitation.workspace(), caller.id(), invitation.role(), now, now));
        } else if (invitation.role().atLeast(existing.get().role())) {
            access.updateRole(h, invitation.workspace(), caller.id(), invitation.role(), now);
        }
    }

    private static boolean invitee(Caller caller, Invitation invitation) {
        var p = caller.principal();
        return p.auth() == Principal.Auth.EMAIL && invitation.email().equalsIgnoreCase(p.email());
    }

    private InvitationView view(String id) {
        return jdbi.withHandle(h -> find(h, id)).view(now());
    }

    private Invitation find(Handle h, String id) {
        return store.find(h, id).orElseThrow(() -> ApiException.notFound("invitation " + id));
    }

    private static ApiException taken(String email) {
        return ApiException.conflict(email + " already has a pending invitation to this workspace; resend it instead");
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
