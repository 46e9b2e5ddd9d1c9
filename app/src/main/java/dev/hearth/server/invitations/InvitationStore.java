package dev.hearth.server.invitations;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.api.invitations.InvitationState;
import dev.hearth.api.tenancy.Role;
import dev.hearth.server.store.KeyedCreates;
import dev.hearth.server.store.PageRequest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/** Persists invitations and the state of their mail. */
public final class InvitationStore {
    /** Which invitations a list shows. */
    public enum Filter { PENDING, EXPIRED, ALL }

    public void insert(Handle h, Invitation i) {
        KeyedCreates.made(h, i.id());
        h.createUpdate("""
                INSERT INTO invitations (id, workspace, email, role, state, invited_by, created_at, updated_at,
                    expires_at, email_sent, send_attempts, next_send_at)
                VALUES (:id, :ws, :email, :role, 'pending', :by, :at, :at, :exp, FALSE, 0, :at)""")
                .bind("id", i.id()).bind("ws", i.workspace()).bind("email", i.email()).bind("role", i.role().name())
                .bind("by", i.invitedBy()).bind("at", millis(i.createdAt())).bind("exp", millis(i.expiresAt())).execute();
    }

    public Optional<Invitation> find(Handle h, String id) {
        return h.createQuery("SELECT * FROM invitations WHERE id = :id").bind("id", id)
                .map(InvitationStore::invitation).findOne();
    }

    public Optional<String> workspaceOf(Handle h, String id, Optional<String> within) {
        return h.createQuery("SELECT workspace FROM invitations WHERE id = :id").bind("id", id).mapTo(String.class)
                .findOne().filter(ws -> within.isEmpty() || within.get().equals(ws));
    }

    /** The pending invitation of an address, expired or not. */
    public Optional<Invitation> pending(Handle h, String workspace, String email) {
        return h.createQuery("SELECT * FROM invitations WHERE workspace = :w AND email = :e AND state = 'pending'")
                .bind("w", workspace).bind("e", email).map(InvitationStore::invitation).findOne();
    }

    public List<Invitation> page(Handle h, String workspace, Filter filter, Instant now, PageRequest page) {
        String where = switch (filter) {
            case PENDING -> " AND state = 'pending' AND expires_at > :now";
            case EXPIRED -> " AND ((state = 'pending' AND expires_at <= :now) OR state = 'expired')";
            case ALL -> "";
        };
        return h.createQuery("SELECT * FROM invitations WHERE workspace = :w AND id > :after" + where
                        + " ORDER BY id LIMIT :n")
                .bind("w", workspace).bind("after", page.after().orElse("")).bind("now", millis(now))
                .bind("n", page.limit() + 1).map(InvitationStore::invitation).list();
    }

    public void setState(Handle h, String id, InvitationState state, Instant at) {
        h.createUpdate("UPDATE invitations SET state = :s, updated_at = :at, next_send_at = NULL WHERE id = :id")
                .bind("id", id).bind("s", state.wire()).bind("at", millis(at)).execute();
    }

    public void accept(Handle h, String id, String principal, Instant at) {
        h.createUpdate("""
                UPDATE invitations SET state = 'accepted', accepted_by = :p, accepted_at = :at, updated_at = :at,
                       next_send_at = NULL WHERE id = :id""")
                .bind("id", id).bind("p", principal).bind("at", millis(at)).execute();
    }

    /** A new expiry and a new mail to send. */
    public void renew(Handle h, String id, Instant expiresAt, Instant at) {
        h.createUpdate("""
                UPDATE invitations SET expires_at = :exp, updated_at = :at, email_sent = FALSE, send_attempts = 0,
                       next_send_at = :at, last_send_error = NULL WHERE id = :id""")
                .bind("id", id).bind("exp", millis(expiresAt)).bind("at", millis(at)).execute();
    }

    /** Pending invitations whose mail is due. */
    public List<Invitation> dueMail(Handle h, Instant now, int n) {
        return h.createQuery("""
                SELECT * FROM invitations WHERE next_send_at IS NOT NULL AND next_send_at <= :now
                AND state = 'pending' AND expires_at > :now ORDER BY next_send_at LIMIT :n""")
                .bind("now", millis(now)).bind("n", n).map(InvitationStore::invitation).list();
    }

    /** Takes the sending of a due mail, so two senders never send it twice; false if taken. */
    public boolean claimMail(Handle h, String id, int attempts, Instant until) {
        return h.createUpdate("""
                UPDATE invitations SET next_send_at = :until, send_attempts = send_attempts + 1
                WHERE id = :id AND send_attempts = :attempts AND next_send_at IS NOT NULL""")
                .bind("id", id).bind("attempts", attempts).bind("until", millis(until)).execute() == 1;
    }

    public void mailSent(Handle h, String id, Instant at) {
        h.createUpdate("""
                UPDATE invitations SET email_sent = TRUE, last_sent_at = :at, next_send_at = NULL, last_send_error = NULL
                WHERE id = :id""").bind("id", id).bind("at", millis(at)).execute();
    }

    public void mailFailed(Handle h, String id, String error, Instant retryAt) {
        h.createUpdate("UPDATE invitations SET last_send_error = :e, next_send_at = :retry WHERE id = :id")
                .bind("id", id).bind("e", error).bind("retry", millis(retryAt)).execute();
    }

    private static Invitation invitation(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Invitation(rs.getString("id"), rs.getString("workspace"), rs.getString("email"),
                Role.valueOf(rs.getString("role")), InvitationState.of(rs.getString("state")), rs.getString("invited_by"),
                instant(rs, "created_at"), instant(rs, "updated_at"), instant(rs, "expires_at"),
                rs.getBoolean("email_sent"), instant(rs, "last_sent_at"), rs.getInt("send_attempts"),
                rs.getString("last_send_error"), rs.getString("accepted_by"), instant(rs, "accepted_at"));
    }
}
