package dev.hearth.server.computers;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.hearth.api.WireName;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.EnvValue;
import dev.hearth.api.computers.OnExpire;
import dev.hearth.api.computers.Pending;
import dev.hearth.api.computers.Resources;
import dev.hearth.api.computers.SleepMode;
import dev.hearth.api.network.NetworkPolicyView;
import dev.hearth.api.operations.OperationError;
import dev.hearth.server.network.Cidr;
import dev.hearth.server.network.NetworkPolicy;
import dev.hearth.server.sandbox.Slot;
import dev.hearth.server.store.KeyedCreates;
import dev.hearth.server.store.NamedRows;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.store.StoredJson;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Persists computers. A deleted computer keeps its row and frees its name and network slot. A new
 * computer is this node's; any node reads any computer, but lists only its own to reconcile.
 */
public final class ComputerStore {
    private final NamedRows<Computer> rows = new NamedRows<>("computers", ComputerStore::computer);
    private final String node;

    public ComputerStore(String node) {
        this.node = node;
    }

    public String node() {
        return node;
    }

    public void insert(Handle h, Computer c) {
        KeyedCreates.made(h, c.id());
        var set = c.settings();
        h.createUpdate("""
                INSERT INTO computers (id, workspace, name, state, image, image_digest, env, ports, cpus, memory_mb,
                    pids, disk_mb, protected, auto_sleep_seconds, freeze_when_idle, generation, incarnation, slot, parent, from_checkpoint, created_at,
                    updated_at, network, launch, node, labels, expires_at, on_expire)
                VALUES (:id, :ws, :name, :state, :image, :digest, :env, :ports, :cpus, :mem, :pids, :disk, :protected, :autoSleep, :freezeIdle,
                    :gen, :incarnation, :slot, :parent, :fromCheckpoint, :at, :at, :network, :launch, :node, :labels,
                    :expiresAt, :onExpire)""")
                .bind("node", node).bind("labels", labels(set)).bind("expiresAt", millis(set.lifetime().expiresAt()))
                .bind("onExpire", set.lifetime().onExpire().wire())
                .bind("id", c.id()).bind("ws", c.workspace()).bind("name", c.name()).bind("state", c.state().wire())
                .bind("image", set.image()).bind("digest", c.imageDigest()).bind("env", EnvValue.store(set.env()))
                .bind("ports", StoredJson.text(set.ports())).bind("cpus", set.resources().cpus())
                .bind("mem", set.resources().memoryMb()).bind("pids", set.resources().pids())
                .bind("disk", set.resources().diskMb())
                .bind("protected", set.protectedFlag()).bind("autoSleep", set.autoSleepSeconds())
                .bind("freezeIdle", set.freezeWhenIdle())
                .bind("gen", c.generation()).bind("incarnation", c.instance().incarnation())
                .bind("slot", c.slot().index()).bind("parent", c.lineage().parent())
                .bind("fromCheckpoint", c.fromCheckpoint()).bind("at", millis(c.times().createdAt()))
                .bind("network", StoredJson.text(set.network().view())).bind("launch", launch(set)).execute();
        storeLabels(h, c.id(), set.labels());
    }

    /** The labels a list filters by, beside the computer's row (which the computer is read from). */
    private static void storeLabels(Handle h, String computer, Map<String, String> labels) {
        h.createUpdate("DELETE FROM computer_labels WHERE computer = :c").bind("c", computer).execute();
        var insert = h.prepareBatch("INSERT INTO computer_labels (computer, name, value) VALUES (:c, :n, :v)");
        labels.forEach((name, value) -> insert.bind("c", computer).bind("n", name).bind("v", value).add());
        if (!labels.isEmpty()) {
            insert.execute();
        }
    }

    private static String labels(Computer.Settings set) {
        return set.labels().isEmpty() ? null : StoredJson.text(set.labels());
    }

    public Optional<Computer> find(Handle h, String id) {
        return h.createQuery("SELECT * FROM computers WHERE id = :id").bind("id", id).map(ComputerStore::computer).findOne();
    }

    /** By id (deleted too), or by live name within a workspace. */
    public Optional<Computer> find(Handle h, String workspace, String idOrName) {
        return rows.find(h, workspace, idOrName);
    }

    /** Which workspace holds it: by id, or by live name within {@code workspace} when given. */
    public Optional<String> workspaceOf(Handle h, String idOrName, Optional<String> workspace) {
        return rows.workspaceOf(h, idOrName, workspace);
    }

    public List<Computer> page(Handle h, String workspace, PageRequest page) {
        return rows.page(h, workspace, page);
    }

    /** A page of the workspace's live computers that pass the filter, in id order (one more than the page holds). */
    public List<Computer> page(Handle h, String workspace, PageRequest page, ComputerFilter filter) {
        var sql = new StringBuilder("SELECT * FROM computers WHERE workspace = :w AND deleted_at IS NULL AND id > :after");
        var states = List.copyOf(filter.states());
        if (!states.isEmpty()) {
            sql.append(" AND state IN (");
            for (int i = 0; i < states.size(); i++) {
                sql.append(i == 0 ? "" : ", ").append(":s").append(i);
            }
            sql.append(")");
        }
        // '!' escapes: Jdbi's statement parser reads a backslash in a literal as an escape of its own.
        filter.pattern().ifPresent(p -> sql.append(" AND (lower(name) LIKE :q ESCAPE '!' OR lower(image) LIKE :q ESCAPE '!')"));
        var labels = List.copyOf(filter.labels().entrySet());
        for (int i = 0; i < labels.size(); i++) {
            sql.append(" AND EXISTS (SELECT 1 FROM computer_labels l WHERE l.computer = computers.id AND l.name = :n")
                    .append(i).append(" AND l.value = :v").append(i).append(")");
        }
        var query = h.createQuery(sql.append(" ORDER BY id LIMIT :lim").toString()).bind("w", workspace)
                .bind("after", page.after().orElse("")).bind("lim", page.limit() + 1);
        for (int i = 0; i < states.size(); i++) {
            query.bind("s" + i, states.get(i).wire());
        }
        filter.pattern().ifPresent(p -> query.bind("q", p));
        for (int i = 0; i < labels.size(); i++) {
            query.bind("n" + i, labels.get(i).getKey()).bind("v" + i, labels.get(i).getValue());
        }
        return query.map(ComputerStore::computer).list();
    }

    /** This node's live computers whose lifetime ended by {@code now}. */
    public List<Computer> expired(Handle h, Instant now) {
        return h.createQuery("SELECT * FROM computers WHERE deleted_at IS NULL AND node = :node AND expires_at <= :now "
                + "ORDER BY expires_at").bind("node", node).bind("now", millis(now)).map(ComputerStore::computer).list();
    }

    /** Every live computer of this node, for reconciling with what runs. */
    public List<Computer> live(Handle h) {
        return h.createQuery("SELECT * FROM computers WHERE deleted_at IS NULL AND node = :node ORDER BY id")
                .bind("node", node).map(ComputerStore::computer).list();
    }

    /** A live computer of another node: its workspace, network slot and node. */
    public record Elsewhere(String workspace, int slot, String node) {
    }

    /** Every live computer of the other nodes (for the network between nodes' computers). */
    public List<Elsewhere> elsewhere(Handle h) {
        return h.createQuery("SELECT workspace, slot, node FROM computers WHERE deleted_at IS NULL AND node <> :node")
                .bind("node", node).map((rs, ctx) -> new Elsewhere(rs.getString("workspace"), rs.getInt("slot"),
                        rs.getString("node"))).list();
    }

    /** The live computer on a network slot (a deleted one frees its slot). */
    public Optional<Computer> onSlot(Handle h, int slot) {
        return h.createQuery("SELECT * FROM computers WHERE slot = :s AND deleted_at IS NULL").bind("s", slot)
                .map(ComputerStore::computer).findOne();
    }

    public Set<Integer> slotsInUse(Handle h) {
        return new TreeSet<>(h.createQuery("SELECT slot FROM computers WHERE deleted_at IS NULL").mapTo(Integer.class).list());
    }

    public long countLive(Handle h, String workspace) {
        return h.createQuery("SELECT COUNT(*) FROM computers WHERE workspace = :w AND deleted_at IS NULL")
                .bind("w", workspace).mapTo(Long.class).one();
    }

    public void update(Handle h, Computer c) {
        var set = c.settings();
        var times = c.times();
        h.createUpdate("""
                UPDATE computers SET name = :name, state = :state, pending = :pending, image_digest = :digest,
                    env = :env, ports = :ports, cpus = :cpus, memory_mb = :mem, pids = :pids, disk_mb = :disk, protected = :protected, auto_sleep_seconds = :autoSleep,
                    freeze_when_idle = :freezeIdle, network = :network,
                    launch = :launch, generation = :gen, incarnation = :incarnation, error = :error, updated_at = :at,
                    last_started_at = :started, last_active_at = :active, deleted_at = :deleted,
                    sleep_mode = :sleepMode, slept_at = :sleptAt, labels = :labels, expires_at = :expiresAt,
                    on_expire = :onExpire
                WHERE id = :id""")
                .bind("labels", labels(set)).bind("expiresAt", millis(set.lifetime().expiresAt()))
                .bind("onExpire", set.lifetime().onExpire().wire())
                .bind("id", c.id()).bind("name", c.name()).bind("state", c.state().wire())
                .bind("pending", c.pending() == null ? null : c.pending().wire())
                .bind("digest", c.imageDigest()).bind("autoSleep", set.autoSleepSeconds())
                .bind("freezeIdle", set.freezeWhenIdle())
                .bind("incarnation", c.instance().incarnation()).bind("env", EnvValue.store(set.env()))
                .bind("ports", StoredJson.text(set.ports())).bind("protected", set.protectedFlag())
                .bind("cpus", set.resources().cpus()).bind("mem", set.resources().memoryMb())
                .bind("pids", set.resources().pids())
                .bind("disk", set.resources().diskMb())
                .bind("network", StoredJson.text(set.network().view())).bind("launch", launch(set))
                .bind("gen", c.generation()).bind("error", StoredJson.text(c.error()))
                .bind("at", millis(times.updatedAt())).bind("started", millis(times.lastStartedAt()))
                .bind("active", millis(times.lastActiveAt())).bind("deleted", millis(times.deletedAt()))
                .bind("sleepMode", c.sleep() == null ? null : c.sleep().mode().wire())
                .bind("sleptAt", c.sleep() == null ? null : millis(c.sleep().since())).execute();
        storeLabels(h, c.id(), c.deleted() ? Map.of() : set.labels());
    }

    /**
     * Makes a computer asleep cold on node {@code from} this node's (it moved here); false when it is
     * no longer that (woken, deleted, moved already).
     */
    public boolean arrive(Handle h, String id, String from) {
        return h.createUpdate("UPDATE computers SET node = :node WHERE id = :id AND node = :from AND deleted_at IS NULL "
                        + "AND state = 'sleeping' AND pending IS NULL AND (sleep_mode IS NULL OR sleep_mode = 'cold')")
                .bind("node", node).bind("id", id).bind("from", from).execute() == 1;
    }

    /** Notes how a sandbox's main process ended, unless the computer runs another sandbox by now. */
    public void noteMainExit(Handle h, String id, Computer.MainExit exit) {
        h.createUpdate("UPDATE computers SET main_exit = :exit WHERE id = :id AND incarnation = :incarnation")
                .bind("id", id).bind("exit", StoredJson.text(exit)).bind("incarnation", exit.incarnation()).execute();
    }

    public void touch(Handle h, String id, Instant at) {
        h.createUpdate("UPDATE computers SET last_active_at = :at WHERE id = :id").bind("id", id).bind("at", millis(at)).execute();
    }

    public Set<String> digestsInUse(Handle h) {
        return new TreeSet<>(h.createQuery("SELECT DISTINCT image_digest FROM computers WHERE deleted_at IS NULL "
                + "AND image_digest IS NOT NULL").mapTo(String.class).list());
    }

    private static Resources resources(ResultSet rs) throws SQLException {
        int memory = rs.getInt("memory_mb");
        int pids = rs.getInt("pids");
        if (rs.wasNull()) {
            pids = Resources.defaultPids(memory);
        }
        return new Resources(rs.getDouble("cpus"), memory, pids, rs.getInt("disk_mb"));
    }

    // NULL for the image's own, with the default restart: computers made before launches are stored so.
    private static String launch(Computer.Settings set) {
        return set.launch().equals(Launch.IMAGE) ? null : StoredJson.text(set.launch());
    }

    private static Launch launch(ResultSet rs) throws SQLException {
        var launch = StoredJson.read(rs, "launch", Launch.class);
        return launch == null ? Launch.IMAGE : launch;
    }

    /** The stored policy; none (a computer made before networks had policies) is the default. */
    private static NetworkPolicy network(ResultSet rs) throws SQLException {
        var view = StoredJson.read(rs, "network", NetworkPolicyView.class);
        if (view == null) {
            return NetworkPolicy.DEFAULT;
        }
        return new NetworkPolicy(view.internet(), view.allowOut().stream().map(Cidr::of).toList(),
                view.denyOut().stream().map(Cidr::of).toList());
    }

    private static Map<String, String> labels(ResultSet rs) throws SQLException {
        var labels = StoredJson.read(rs, "labels", new TypeReference<Map<String, String>>() { });
        return labels == null ? Map.of() : Map.copyOf(labels);
    }

    private static Lifetime lifetime(ResultSet rs) throws SQLException {
        Instant at = instant(rs, "expires_at");
        String how = rs.getString("on_expire");
        return at == null ? Lifetime.NONE : new Lifetime(at, how == null ? OnExpire.DELETE
                : WireName.parse(OnExpire.class, how));
    }

    private static Computer.Sleep sleep(ResultSet rs, ComputerState state) throws SQLException {
        if (state != ComputerState.SLEEPING) {
            return null;
        }
        Instant since = instant(rs, "slept_at");
        return new Computer.Sleep(SleepMode.of(rs.getString("sleep_mode")), since == null ? instant(rs, "updated_at") : since);
    }

    private static Computer computer(ResultSet rs, StatementContext ctx) throws SQLException {
        int autoSleep = rs.getInt("auto_sleep_seconds");
        Integer autoSleepSeconds = rs.wasNull() ? null : autoSleep;
        var settings = new Computer.Settings(rs.getString("image"), EnvValue.load(rs.getString("env")),
                StoredJson.read(rs, "ports", new TypeReference<List<Computer.Port>>() { }), resources(rs),
                rs.getBoolean("protected"), autoSleepSeconds, network(rs), launch(rs), labels(rs), lifetime(rs),
                rs.getBoolean("freeze_when_idle"));
        var state = ComputerState.of(rs.getString("state"));
        var status = new Computer.Status(state, Pending.of(rs.getString("pending")),
                StoredJson.read(rs, "error", OperationError.class), StoredJson.read(rs, "main_exit",
                Computer.MainExit.class), sleep(rs, state));
        var instance = new Computer.Instance(rs.getString("node"), rs.getString("image_digest"),
                rs.getInt("generation"), rs.getInt("incarnation"), new Slot(rs.getInt("slot")));
        var lineage = new Computer.Lineage(rs.getString("parent"), rs.getString("from_checkpoint"));
        var times = new Computer.Times(instant(rs, "created_at"), instant(rs, "updated_at"),
                instant(rs, "last_started_at"), instant(rs, "last_active_at"), instant(rs, "deleted_at"));
        return new Computer(rs.getString("id"), rs.getString("workspace"), rs.getString("name"), settings, status,
                instance, lineage, times);
    }
}
