package dev.hearth.server.access;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.server.tenancy.Principal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/** Persists principals and their keys. */
public final class PrincipalStore {

    public void insert(Handle h, Principal p) {
        h.createUpdate("""
                INSERT INTO principals (id, auth, email, name, description, created_by, created_at, updated_at, operator)
                VALUES (:id, :auth, :email, :name, :description, :createdBy, :createdAt, :updatedAt, :operator)""")
                .bind("id", p.id()).bind("auth", p.auth().name()).bind("email", p.email()).bind("name", p.name())
                .bind("description", p.description()).bind("createdBy", p.createdBy())
                .bind("createdAt", millis(p.createdAt())).bind("updatedAt", millis(p.updatedAt()))
                .bind("operator", p.operator()).execute();
    }

    public Optional<Principal> find(Handle h, String id) {
        return h.createQuery("SELECT * FROM principals WHERE id = :id").bind("id", id)
                .map(PrincipalStore::principal).findOne();
    }

    public Optional<Principal> findByEmail(Handle h, String email) {
        return h.createQuery("SELECT * FROM principals WHERE email = :email")
                .bind("email", email.toLowerCase(Locale.ROOT)).map(PrincipalStore::principal).findOne();
    }

    public long count(Handle h) {
        return h.createQuery("SELECT COUNT(*) FROM principals").mapTo(Long.class).one();
    }

    public void update(Handle h, Principal p) {
        h.createUpdate("UPDATE principals SET name = :name, description = :description, updated_at = :at WHERE id = :id")
                .bind("id", p.id()).bind("name", p.name()).bind("description", p.description())
                .bind("at", millis(p.updatedAt())).execute();
    }

    public void insertKey(Handle h, PrincipalKey k) {
        h.createUpdate("""
                INSERT INTO principal_keys (id, principal, public_key, byok, created_by, created_at, expires_at)
                VALUES (:id, :principal, :publicKey, :byok, :createdBy, :createdAt, :expiresAt)""")
                .bind("id", k.id()).bind("principal", k.principal()).bind("publicKey", k.publicKey())
                .bind("byok", k.byok()).bind("createdBy", k.createdBy())
                .bind("createdAt", millis(k.createdAt())).bind("expiresAt", millis(k.expiresAt())).execute();
    }

    public Optional<PrincipalKey> findKey(Handle h, String id) {
        return h.createQuery("SELECT * FROM principal_keys WHERE id = :id").bind("id", id)
                .map(PrincipalStore::key).findOne();
    }

    /** The principal's newest key, whatever its state. */
    public Optional<PrincipalKey> currentKey(Handle h, String principal) {
        return h.createQuery("SELECT * FROM principal_keys WHERE principal = :p ORDER BY id DESC LIMIT 1")
                .bind("p", principal).map(PrincipalStore::key).findOne();
    }

    public void revokeKeys(Handle h, String principal, Instant at) {
        h.createUpdate("UPDATE principal_keys SET revoked_at = :at WHERE principal = :p AND revoked_at IS NULL")
                .bind("p", principal).bind("at", millis(at)).execute();
    }

    public void touchKey(Handle h, String id, Instant at) {
        h.createUpdate("UPDATE principal_keys SET last_used_at = :at WHERE id = :id")
                .bind("id", id).bind("at", millis(at)).execute();
    }

    private static Principal principal(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Principal(rs.getString("id"), Principal.Auth.valueOf(rs.getString("auth")), rs.getString("email"),
                rs.getString("name"), rs.getString("description"), rs.getString("created_by"),
                instant(rs, "created_at"), instant(rs, "updated_at"), rs.getBoolean("operator"));
    }

    private static PrincipalKey key(ResultSet rs, StatementContext ctx) throws SQLException {
        return new PrincipalKey(rs.getString("id"), rs.getString("principal"), rs.getString("public_key"),
                rs.getBoolean("byok"), rs.getString("created_by"), instant(rs, "created_at"),
                instant(rs, "expires_at"), instant(rs, "last_used_at"), instant(rs, "revoked_at"));
    }
}
