package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import dev.hearth.api.databases.DatabaseStatement;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.postgres.Insights;
import java.util.List;
import java.util.Locale;

/** A database's query insights: the statements it spends most time on (see {@link Insights}). */
public final class DatabaseInsights {
    static final int MAX = 100;
    private final DatabaseService service;

    DatabaseInsights(DatabaseService service) {
        this.service = service;
    }

    /** The top statements by {@code order} ({@code total} or {@code mean} time); wakes a sleeping database, as a client would. */
    public List<DatabaseStatement> top(Workspace workspace, String ref, String order, Integer limit) {
        var by = order(order);
        int n = Validate.range("limit", limit, 1, MAX, 20);
        var db = service.live(workspace, ref);
        var host = service.host();
        return service.locked(db.id(), () -> {
            host.supervisor().start(db.id());
            return Insights.top(host.supervisor().cluster(db.id()), by, n);
        });
    }

    private static Insights.Order order(String text) {
        try {
            return text == null ? Insights.Order.TOTAL : Insights.Order.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("order", "total or mean");
        }
    }
}
