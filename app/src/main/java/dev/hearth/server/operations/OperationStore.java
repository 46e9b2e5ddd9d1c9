package dev.hearth.server.operations;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.operations.OperationError;
import dev.hearth.api.operations.OperationState;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.store.StoredJson;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Persists operations and the leases of the processes running them. An operation is its node's:
 * only a process of that node takes it over when its lease lapses, since its work is on that
 * node's computers, clusters and files.
 */
public final class OperationStore {
    private final String node;

    public OperationStore(String node) {
        this.node = node;
    }

    public void insert(Handle h, Operation op, String owner, Instant leaseUntil) {
        h.createUpdate("""
                INSERT INTO operations (id, kind, state, workspace, resource, input, attempts, lease_owner, lease_until,
                                        created_at, updated_at, node)
                VALUES (:id, :kind, 'RUNNING', :ws, :resource, :input, 1, :owner, :until, :at, :at, :node)""")
                .bind("node", node)
                .bind("id", op.id()).bind("kind", op.kind()).bind("ws", op.workspace()).bind("resource", op.resource())
                .bind("input", op.input().toString()).bind("owner", owner).bind("until", millis(leaseUntil))
                .bind("at", millis(op.createdAt())).execute();
    }

    public Optional<Operation> find(Handle h, String id) {
        return h.createQuery("SELECT * FROM operations WHERE id = :id").bind("id", id)
                .map(OperationStore::operation).findOne();
    }

    /**
     * A page of the workspace's operations, newest first: ids sort by creation time, so the cursor
     * is the last id shown and the next page holds the smaller ones.
     */
    public List<Operation> page(Handle h, String workspace, Filter filter, PageRequest page) {
        return h.createQuery("SELECT * FROM operations WHERE workspace = :w AND (:after = '' OR id < :after)"
                        + (filter.state() == null ? "" : " AND state = :state")
                        + (filter.resource() == null ? "" : " AND resource = :resource")
                        + " ORDER BY id DESC LIMIT :n")
                .bind("w", workspace).bind("after", page.after().orElse("")).bind("n", page.limit() + 1)
                .bind("state", filter.state() == null ? null : filter.state().name()).bind("resource", filter.resource())
                .map(OperationStore::operation).list();
    }

    /** Which operations a list shows: of one state, of one resource, or (null) any. */
    public record Filter(OperationState state, String resource) {
    }

    public Optional<String> workspaceOf(Handle h, String id, Optional<String> within) {
        return h.createQuery("SELECT workspace FROM operations WHERE id = :id").bind("id", id).mapTo(String.class)
                .findOne().filter(ws -> within.isEmpty() || within.get().equals(ws));
    }

    public void progress(Handle h, String id, String progress, Instant at) {
        h.createUpdate("UPDATE operations SET progress = :p, updated_at = :at WHERE id = :id AND state = 'RUNNING'")
                .bind("id", id).bind("p", progress).bind("at", millis(at)).execute();
    }

    /** Records the outcome, unless another process has taken the operation over (its lease lapsed). */
    public boolean complete(Handle h, String id, String owner, OperationState state, OperationError error, Instant at) {
        return h.createUpdate("""
                UPDATE operations SET state = :state, error = :error, updated_at = :at, completed_at = :at,
                       lease_owner = NULL, lease_until = NULL
                WHERE id = :id AND state = 'RUNNING' AND lease_owner = :owner""")
                .bind("id", id).bind("owner", owner).bind("state", state.name()).bind("error", StoredJson.text(error))
                .bind("at", millis(at)).execute() == 1;
    }

    public void renewLeases(Handle h, String owner, Instant until) {
        h.createUpdate("UPDATE operations SET lease_until = :until WHERE lease_owner = :owner AND state = 'RUNNING'")
                .bind("owner", owner).bind("until", millis(until)).execute();
    }

    /** Whether an operation on this resource is running (or was, when its process stopped). */
    public boolean runningFor(Handle h, String resource) {
        return h.createQuery("SELECT COUNT(*) FROM operations WHERE resource = :r AND state = 'RUNNING'")
                .bind("r", resource).mapTo(Integer.class).one() > 0;
    }

    /** The running operation of that kind on the resource, if any. */
    public Optional<Operation> running(Handle h, String resource, String kind) {
        return h.createQuery("SELECT * FROM operations WHERE resource = :r AND kind = :k AND state = 'RUNNING' "
                + "ORDER BY created_at LIMIT 1").bind("r", resource).bind("k", kind).map(OperationStore::operation).findOne();
    }

    /** This node's running operations whose lease has lapsed (or every one not ours, when {@code all}). */
    public List<Operation> orphans(Handle h, String owner, Instant now, boolean all) {
        return h.createQuery("SELECT * FROM operations WHERE state = 'RUNNING' AND node = :node AND "
                        + "(lease_owner IS NULL OR lease_owner <> :owner) AND (:all OR lease_until IS NULL OR lease_until < :now)")
                .bind("owner", owner).bind("now", millis(now)).bind("all", all).bind("node", node)
                .map(OperationStore::operation).list();
    }

    /** Takes an orphan over; false when another process took it first. */
    public boolean claim(Handle h, Operation op, String owner, Instant until) {
        return h.createUpdate("""
                UPDATE operations SET lease_owner = :owner, lease_until = :until, attempts = attempts + 1
                WHERE id = :id AND state = 'RUNNING' AND attempts = :attempts""")
                .bind("id", op.id()).bind("owner", owner).bind("until", millis(until))
                .bind("attempts", op.attempts()).execute() == 1;
    }

    private static Operation operation(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Operation(rs.getString("id"), rs.getString("kind"), OperationState.valueOf(rs.getString("state")),
                rs.getString("workspace"), rs.getString("resource"), StoredJson.read(rs, "input", JsonNode.class),
                rs.getString("progress"), StoredJson.read(rs, "error", OperationError.class),
                rs.getInt("attempts"), instant(rs, "created_at"), instant(rs, "updated_at"), instant(rs, "completed_at"));
    }
}
