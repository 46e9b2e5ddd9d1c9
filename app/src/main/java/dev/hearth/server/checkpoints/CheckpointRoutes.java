package dev.hearth.server.checkpoints;

import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CreateCheckpoint;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.util.List;
import java.util.Map;

/**
 * The four routes of a computer's or a database's checkpoints, the same for both (under
 * {@code /computers/{cmp}} and {@code /databases/{db}}): translation only, one named handler a route.
 */
public final class CheckpointRoutes {
    private final CheckpointSource source;
    private final String param;

    private CheckpointRoutes(CheckpointSource source, String param) {
        this.source = source;
        this.param = param;
    }

    /** {@code owner}: computer or database; {@code param}: its path parameter; {@code whatIsTaken}: the create's summary. */
    public static void register(RouteTable routes, String owner, String param, Scope read, Scope write,
                                String whatIsTaken, CheckpointSource source) {
        var api = new CheckpointRoutes(source, param);
        String base = "/" + owner + "s/{" + param + "}";
        routes.create(base + "/checkpoints", write, api::create).recalls(api::recall)
                .summary(whatIsTaken).mayTake(CreateCheckpoint.class)
                .statuses(202).answers(Contract.one("checkpoint", Checkpoint.class));
        routes.add("GET", base + "/checkpoints", read, api::list)
                .summary("The " + owner + "'s checkpoints, newest first").paged()
                .answers(Contract.page("checkpoints", Checkpoint.class));
        routes.add("GET", base + "/checkpoints/{chk}", read, api::get)
                .summary("A checkpoint, by id or name").answers(Contract.one("checkpoint", Checkpoint.class));
        routes.add("DELETE", base + "/checkpoints/{chk}", write, api::delete)
                .summary("Delete a checkpoint (a checkpoint.delete operation)").statuses(202)
                .answers(Contract.one("checkpoint", Checkpoint.class));
    }

    private Reply create(Exchange ex) {
        return Reply.status(202, source.create(ex.workspace(), ex.param(param),
                ex.bodyOr(CreateCheckpoint.class, new CreateCheckpoint(null))).body());
    }

    private Reply recall(Exchange ex, String id) {
        return Reply.status(202, Reply.one("checkpoint", source.get(ex.workspace(), ex.param(param), id)));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("checkpoints", source.list(ex.workspace(), ex.param(param), ex.page())));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Map.of("checkpoint", source.get(ex.workspace(), ex.param(param), ex.param("chk")),
                "operations", List.of()));
    }

    private Reply delete(Exchange ex) {
        return Reply.status(202, source.delete(ex.workspace(), ex.param(param), ex.param("chk")).body());
    }
}
