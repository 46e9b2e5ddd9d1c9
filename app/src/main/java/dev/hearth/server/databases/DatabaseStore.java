package dev.hearth.server.databases;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.api.databases.DatabaseState;
import dev.hearth.api.operations.OperationError;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.store.KeyedCreates;
import dev.hearth.server.store.NamedRows;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.store.StoredJson;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Persists databases. A deleted database keeps its row and frees its name and port (ports are
 * chosen store-wide, so nodes on one host never share one). Any node reads any database; it lists
 * only its own to reconcile and supervise.
 */
public final class DatabaseStore {
    private final String host;
    private final String node;
    private final NamedRows<Database> rows;

    /** {@code host} is the public host name every database is reached at (a setting, not stored); {@code node} this one. */
    public DatabaseStore(String host, String node) {
        this.host = host;
        this.node = node;
        this.rows = new NamedRows<>("databases", this::database);
    }

    public String node() {
        return node;
    }

    public void insert(Handle h, Database d) {
        KeyedCreates.made(h, d.id());
        var login = d.login();
        var lineage = d.lineage();
        h.createUpdate("""
                INSERT INTO databases (id, workspace, name, state, version, port, db_name, db_user, password_key,
                    password, reset_pending, protected, auto_sleep_seconds, disk_mb, generation, parent, from_checkpoint,
                    created_at, updated_at, node, history_hours)
                VALUES (:id, :ws, :name, :state, :version, :port, :db, :user, :key, :password, :pending, :protected,
                    :autoSleep, :disk, :gen, :parent, :fromCheckpoint, :at, :at, :node, :history)""")
                .bind("history", d.settings().historyHours())
                .bind("node", d.placement().node())
                .bind("id", d.id()).bind("ws", d.workspace()).bind("name", d.name())
                .bind("state", d.status().state().wire()).bind("version", d.placement().version())
                .bind("port", d.placement().port()).bind("db", login.dbName()).bind("user", login.user())
                .bind("key", login.password().keyId()).bind("password", login.password().data())
                .bind("pending", login.resetPending()).bind("protected", d.settings().protectedFlag())
                .bind("autoSleep", d.settings().autoSleepSeconds()).bind("disk", d.settings().diskMb())
                .bind("gen", lineage.generation())
                .bind("parent", lineage.parent()).bind("fromCheckpoint", lineage.fromCheckpoint())
                .bind("at", millis(d.status().createdAt())).execute();
    }

    public Optional<Database> find(Handle h, String id) {
        return h.createQuery("SELECT * FROM databases WHERE id = :id").bind("id", id).map(this::database).findOne();
    }

    /** By id (deleted too), or by live name within a workspace. */
    public Optional<Database> find(Handle h, String workspace, String idOrName) {
        return rows.find(h, workspace, idOrName);
    }

    /** Which workspace holds it: by id, or by live name within {@code workspace} when given. */
    public Optional<String> workspaceOf(Handle h, String idOrName, Optional<String> workspace) {
        return rows.workspaceOf(h, idOrName, workspace);
    }

    public List<Database> page(Handle h, String workspace, PageRequest page) {
        return rows.page(h, workspace, page);
    }

    /** Every live database of this node, for reconciling with what runs. */
    public List<Database> live(Handle h) {
        return h.createQuery("SELECT * FROM databases WHERE deleted_at IS NULL AND node = :node ORDER BY id")
                .bind("node", node).map(this::database).list();
    }

    /** A live database of another node, and the address that node's database ports listen on. */
    public record Away(Database database, String nodeAddress) {
    }

    /** Every live database of the other nodes, for this node to reach them on their ports. */
    public List<Away> elsewhere(Handle h) {
        return h.createQuery("""
                        SELECT d.*, n.database_address FROM databases d JOIN nodes n ON n.name = d.node
                        WHERE d.deleted_at IS NULL AND d.node <> :node ORDER BY d.id""")
                .bind("node", node)
                .map((rs, ctx) -> new Away(database(rs, ctx), rs.getString("database_address"))).list();
    }

    /**
     * Records database {@code id}, asleep on node {@code from}, as this node's: false when it is no
     * longer that (deleted, awake, or elsewhere), and then nothing changed.
     */
    public boolean arrive(Handle h, String id, String from) {
        return h.createUpdate("""
                        UPDATE databases SET node = :node WHERE id = :id AND node = :from AND state = 'sleeping'
                            AND deleted_at IS NULL""")
                .bind("node", node).bind("id", id).bind("from", from).execute() == 1;
    }

    public Set<Integer> portsInUse(Handle h) {
        return new TreeSet<>(h.createQuery("SELECT port FROM databases WHERE deleted_at IS NULL").mapTo(Integer.class).list());
    }

    public long countLive(Handle h, String workspace) {
        return h.createQuery("SELECT COUNT(*) FROM databases WHERE workspace = :w AND deleted_at IS NULL")
                .bind("w", workspace).mapTo(Long.class).one();
    }

    public void update(Handle h, Database d) {
        var login = d.login();
        var status = d.status();
        h.createUpdate("""
                UPDATE databases SET state = :state, password_key = :key, password = :password,
                    reset_pending = :pending, protected = :protected, auto_sleep_seconds = :autoSleep, disk_mb = :disk,
                    history_hours = :history, error = :error,
                    updated_at = :updated, last_active_at = :active, deleted_at = :deleted
                WHERE id = :id""")
                .bind("id", d.id()).bind("state", status.state().wire()).bind("key", login.password().keyId())
                .bind("password", login.password().data()).bind("pending", login.resetPending())
                .bind("protected", d.settings().protectedFlag()).bind("autoSleep", d.settings().autoSleepSeconds())
                .bind("disk", d.settings().diskMb()).bind("history", d.settings().historyHours()).bind("error", StoredJson.text(status.error())).bind("updated", millis(status.updatedAt()))
                .bind("active", millis(status.lastActiveAt())).bind("deleted", millis(status.deletedAt())).execute();
    }

    private Database database(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Database(rs.getString("id"), rs.getString("workspace"), rs.getString("name"),
                new Database.Placement(rs.getString("node"), rs.getString("version"), host, rs.getInt("port")),
                new Database.Login(rs.getString("db_name"), rs.getString("db_user"),
                        new Keyring.Sealed(rs.getString("password_key"), rs.getString("password")),
                        rs.getBoolean("reset_pending")),
                new Database.Lineage(rs.getString("parent"), rs.getString("from_checkpoint"), rs.getInt("generation")),
                new Database.Settings(rs.getBoolean("protected"), rs.getInt("auto_sleep_seconds"),
                        rs.getInt("disk_mb"), rs.getInt("history_hours")),
                status(rs));
    }

    private static Database.Status status(ResultSet rs) throws SQLException {
        return new Database.Status(DatabaseState.of(rs.getString("state")),
                StoredJson.read(rs, "error", OperationError.class), instant(rs, "created_at"),
                instant(rs, "updated_at"), instant(rs, "last_active_at"), instant(rs, "deleted_at"));
    }
}
