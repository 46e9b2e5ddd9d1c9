package dev.hearth.server.access;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

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

/** Persists API keys: their digests, never their secrets. */
public final class ApiKeyStore {

    public void insert(Handle h, ApiKey k, String secretHash) {
        KeyedCreates.made(h, k.id());
        h.createUpdate("""
                INSERT INTO api_keys (id, workspace, principal, name, role, prefix, secret_hash, created_at, expires_at)
                VALUES (:id, :workspace, :principal, :name, :role, :prefix, :hash, :createdAt, :expiresAt)""")
                .bind("id", k.id()).bind("workspace", k.workspace()).bind("principal", k.principal())
                .bind("name", k.name()).bind("role", k.role().wire()).bind("prefix", k.prefix()).bind("hash", secretHash)
                .bind("createdAt", millis(k.createdAt())).bind("expiresAt", millis(k.expiresAt())).execute();
    }

    public Optional<ApiKey> find(Handle h, String id) {
        return h.createQuery("SELECT * FROM api_keys WHERE id = :id").bind("id", id).map(ApiKeyStore::key).findOne();
    }

    public Optional<ApiKey> findBySecret(Handle h, String secretHash) {
        return h.createQuery("SELECT * FROM api_keys WHERE secret_hash = :hash").bind("hash", secretHash)
                .map(ApiKeyStore::key).findOne();
    }

    public List<ApiKey> page(Handle h, String workspace, PageRequest page) {
        return h.createQuery("SELECT * FROM api_keys WHERE workspace = :w AND id > :after ORDER BY id LIMIT :n")
                .bind("w", workspace).bind("after", page.after().orElse("")).bind("n", page.limit() + 1)
                .map(ApiKeyStore::key).list();
    }

    public void revoke(Handle h, String id, Instant at) {
        h.createUpdate("UPDATE api_keys SET revoked_at = :at WHERE id = :id AND revoked_at IS NULL")
                .bind("id", id).bind("at", millis(at)).execute();
    }

    /** Revokes every key of the principal in the workspace (its access there was removed). */
    public void revokeAll(Handle h, String workspace, String principal, Instant at) {
        h.createUpdate("""
                UPDATE api_keys SET revoked_at = :at WHERE workspace = :w AND principal = :p AND revoked_at IS NULL""")
                .bind("w", workspace).bind("p", principal).bind("at", millis(at)).execute();
    }

    /** Whether the key's workspace is still there: a deleted workspace's keys open nothing. */
    public boolean workspaceLive(Handle h, String workspace) {
        return h.createQuery("SELECT COUNT(*) FROM workspaces WHERE id = :w AND deleted_at IS NULL")
                .bind("w", workspace).mapTo(Long.class).one() > 0;
    }

    public void touch(Handle h, String id, Instant at) {
        h.createUpdate("UPDATE api_keys SET last_used_at = :at WHERE id = :id").bind("id", id).bind("at", millis(at))
                .execute();
    }

    private static ApiKey key(ResultSet rs, StatementContext ctx) throws SQLException {
        return new ApiKey(rs.getString("id"), rs.getString("workspace"), rs.getString("principal"), rs.getString("name"),
                Role.parse(rs.getString("role")).orElseThrow(), rs.getString("prefix"), instant(rs, "created_at"),
                instant(rs, "expires_at"), instant(rs, "last_used_at"), instant(rs, "revoked_at"));
    }
}
