package dev.hearth.server.metrics;

import java.util.List;
import java.util.Locale;
import org.jdbi.v3.core.Jdbi;

/**
 * Counts of this node's live resources by state, read from the store at each scrape (each node
 * counts its own, so that sums over nodes count each once).
 */
final class StateCounts {
    /** One row of a count: the label values and how many. */
    record Row(String first, String second, long count) {
    }

    private final Jdbi jdbi;
    private final String node;

    StateCounts(Jdbi jdbi, String node) {
        this.jdbi = jdbi;
        this.node = node;
    }

    List<Row> computers() {
        return byState("SELECT state, '' AS second, COUNT(*) AS n FROM computers WHERE deleted_at IS NULL AND node = :node GROUP BY state");
    }

    /** Sleeping computers by how they sleep; those from before sleep had depths were cold. */
    List<Row> sleepers() {
        return byState("SELECT COALESCE(sleep_mode, 'cold'), '' AS second, COUNT(*) AS n FROM computers "
                + "WHERE deleted_at IS NULL AND node = :node AND state = 'sleeping' GROUP BY COALESCE(sleep_mode, 'cold')");
    }

    List<Row> databases() {
        return byState("SELECT state, '' AS second, COUNT(*) AS n FROM databases WHERE deleted_at IS NULL AND node = :node GROUP BY state");
    }

    /** The warm pool's sandboxes by image and state (booting, ready); images keep their spelling. */
    List<Row> pool() {
        return jdbi.withHandle(h -> h.createQuery("SELECT image, state, COUNT(*) FROM pooled_sandboxes WHERE node = :node "
                        + "GROUP BY image, state").bind("node", node).map((rs, ctx) -> new Row(rs.getString(1), rs.getString(2), rs.getLong(3))).list());
    }

    /** Every node sharing the store by state, down where its lease lapsed (each node reports all of them). */
    List<Row> nodes() {
        return jdbi.withHandle(h -> h.createQuery("SELECT CASE WHEN lease_until < :now THEN 'down' ELSE state END, "
                        + "COUNT(*) FROM nodes GROUP BY 1")
                .bind("now", System.currentTimeMillis())
                .map((rs, ctx) -> new Row(rs.getString(1), "", rs.getLong(2))).list());
    }

    /** Operations by kind and state (running, succeeded, failed), over the store's whole history. */
    List<Row> operations() {
        return byState("SELECT kind, state, COUNT(*) AS n FROM operations WHERE node = :node GROUP BY kind, state");
    }

    private List<Row> byState(String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).bind("node", node)
                .map((rs, ctx) -> new Row(wire(rs.getString(1)), wire(rs.getString(2)), rs.getLong(3))).list());
    }

    // Operations keep their state as the enum's name (SUCCEEDED); labels use the API's lowercase form.
    private static String wire(String value) {
        return value.toLowerCase(Locale.ROOT);
    }
}
