package dev.hearth.server.databases;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.hearth.api.databases.Connection;
import dev.hearth.api.databases.DatabaseState;
import dev.hearth.api.databases.DatabaseView;
import dev.hearth.api.operations.OperationError;
import dev.hearth.server.crypto.Keyring;
import java.time.Instant;

/**
 * A database as stored: which one it is, where it runs, how one logs in, what it was branched
 * from, its settings and its status. The API shows it as a {@link DatabaseView}, the login never.
 */
public record Database(String id, String workspace, String name, Placement placement, Login login, Lineage lineage,
                       Settings settings, Status status) {
    public static final String ENGINE = DatabaseView.ENGINE;

    /**
     * Which node and PostgreSQL run it, and where clients reach it: the public host and the
     * database's own port.
     */
    public record Placement(String node, String version, String host, int port) {
    }

    /**
     * {@code dbName} and {@code user} are the names inside the cluster (a branch keeps its
     * source's); {@code password} is sealed with the row's id as associated data.
     */
    public record Login(String dbName, String user, Keyring.Sealed password, boolean resetPending) {
        Login withPassword(Keyring.Sealed sealed, boolean pending) {
            return new Login(dbName, user, sealed, pending);
        }
    }

    /** The database and checkpoint a branch was made from (null for a new one), and its generation. */
    public record Lineage(String parent, String fromCheckpoint, int generation) {
    }

    /**
     * A protected database refuses delete; one with no connection for {@code autoSleepSeconds} sleeps (0:
     * never); its files are on a disk of {@code diskMb}; {@code historyHours}: how far back it can be
     * branched or restored (see {@link HistoryKeeper}).
     */
    public record Settings(boolean protectedFlag, int autoSleepSeconds, int diskMb, int historyHours) {
        public static final int DEFAULT_HISTORY_HOURS = 24;
        public static final int MAX_HISTORY_HOURS = 720;
    }

    /** Where it is in its life: its state, why its cluster last stopped unasked, and when things happened. */
    public record Status(DatabaseState state, OperationError error, Instant createdAt, Instant updatedAt,
                         Instant lastActiveAt, Instant deletedAt) {
        Status changed(Instant now) {
            return new Status(state, error, createdAt, now, lastActiveAt, deletedAt);
        }

        Status moved(DatabaseState newState, OperationError newError, Instant now) {
            return new Status(newState, newError, createdAt, now, lastActiveAt, deletedAt);
        }

        Status activeAt(Instant at) {
            return new Status(state, error, createdAt, updatedAt, at, deletedAt);
        }

        Status deleted(DatabaseState newState, Instant now) {
            return new Status(newState, error, createdAt, now, lastActiveAt, now);
        }
    }

    @JsonValue
    public DatabaseView view() {
        return new DatabaseView(id, workspace, name, status.state(), placement.version(), placement.host(),
                placement.port(), lineage.parent(), lineage.fromCheckpoint(), lineage.generation(),
                settings.protectedFlag(), settings.autoSleepSeconds(), settings.diskMb(), settings.historyHours(),
                placement.node(), status.error(), status.createdAt(), status.updatedAt(), status.lastActiveAt(),
                status.deletedAt());
    }

    public boolean isDeleted() {
        return status.deletedAt() != null;
    }

    public Database withState(DatabaseState newState, OperationError newError, Instant now) {
        return new Database(id, workspace, name, placement, login, lineage, settings,
                status.moved(newState, newError, now));
    }

    public Database withPassword(Keyring.Sealed sealed, boolean pending, Instant now) {
        return new Database(id, workspace, name, placement, login.withPassword(sealed, pending), lineage, settings,
                status.changed(now));
    }

    public Database withSettings(Settings changed, Instant now) {
        return new Database(id, workspace, name, placement, login, lineage, changed,
                status.changed(now));
    }

    public Database withActivity(Instant at) {
        return new Database(id, workspace, name, placement, login, lineage, settings, status.activeAt(at));
    }

    /** Gone from view: no reset left pending, no longer protected, and in {@code newState} (the table's). */
    public Database deleted(DatabaseState newState, Instant now) {
        return new Database(id, workspace, name, placement, login.withPassword(login.password(), false), lineage,
                new Settings(false, settings.autoSleepSeconds(), settings.diskMb(), settings.historyHours()),
                status.deleted(newState, now));
    }

    /** The associated data that binds the sealed password to this row. */
    public String associatedData() {
        return "database:" + id;
    }

    /** How its owner connects; {@code poolerDatabase} is the database's id (the pooler's names are unique). */
    Connection connection(String password, int poolerPort, String poolerDatabase, String ca) {
        return Connection.of(placement.host(), placement.port(), login.dbName(), login.user(), password,
                Connection.TRACKED, login.resetPending(), poolerPort, poolerDatabase, ca, name);
    }

    /** How {@code user} (another role of the database) reaches its default database. */
    Connection connection(String user, String password, int poolerPort, String poolerDatabase, String ca) {
        return Connection.of(placement.host(), placement.port(), login.dbName(), user, password,
                Connection.SHOWN_ONCE, false, poolerPort, poolerDatabase, ca, name);
    }
}
