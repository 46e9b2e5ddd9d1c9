package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.eclipse.jetty.util.Fields;

/**
 * {@code GET /v2/sandboxes}: the key's workspace's E2B sandboxes, filtered by metadata and state
 * (as labels and states of {@code /v1}) and by start and template, ordered by start (newest first
 * unless {@code order=asc}) across the whole list, then paged: E2B pages after sorting, so the
 * facade reads the whole list (at most {@link #MAX} sandboxes) and its next token is an offset.
 */
final class SandboxList {
    static final int MAX = 10_000;
    private final V1 v1;
    private final Sandboxes sandboxes;

    SandboxList(V1 v1, Sandboxes sandboxes) {
        this.v1 = v1;
        this.sandboxes = sandboxes;
    }

    record Query(String metadata, String states, String startedAfter, String template, String order, String limit,
                 String nextToken) {
        static Query of(Fields q) {
            return new Query(q.getValue("metadata"), q.getValue("state"), q.getValue("startedAfter"),
                    q.getValue("template"), q.getValue("order"), q.getValue("limit"), q.getValue("nextToken"));
        }
    }

    Sandboxes.Listed list(E2bAuth.Key caller, Query q) {
        int limit = whole("limit", q.limit(), 100, 1, 1000);
        int from = whole("nextToken", q.nextToken(), 0, 0, MAX);
        Instant after = instant(q.startedAfter());
        boolean ascending = order(q.order());
        var all = new ArrayList<ObjectNode>();
        String cursor = null;
        do {
            var page = v1.get(sandboxes.listPath(caller, q.metadata(), q.states(), cursor), caller.authorization())
                    .orThrow();
            for (var computer : page.path("computers")) {
                var listed = sandboxes.listed(computer, sandboxes.known(computer.path("id").asText()).orElse(null));
                if ((after == null || !Instant.parse(listed.path("startedAt").asText()).isBefore(after))
                        && (q.template() == null || q.template().equals(listed.path("templateID").asText()))) {
                    all.add(listed);
                }
            }
            cursor = page.path("next_cursor").isTextual() ? page.path("next_cursor").asText() : null;
        } while (cursor != null && all.size() < MAX);
        Comparator<ObjectNode> byStart = Comparator.comparing((ObjectNode s) -> Instant.parse(s.path("startedAt").asText()))
                .thenComparing(s -> s.path("sandboxID").asText());
        all.sort(ascending ? byStart : byStart.reversed());
        var out = E2bJson.NODES.arrayNode();
        List<ObjectNode> page = all.subList(Math.min(from, all.size()), Math.min(from + limit, all.size()));
        page.forEach(out::add);
        return new Sandboxes.Listed(out, from + limit < all.size() ? Integer.toString(from + limit) : null);
    }

    private static int whole(String name, String given, int otherwise, int min, int max) {
        if (given == null || given.isBlank()) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(given.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new E2bException(400, name + " must be a whole number from " + min + " to " + max + "; got " + given);
    }

    private static Instant instant(String given) {
        try {
            return given == null || given.isBlank() ? null : Instant.parse(given.strip());
        } catch (DateTimeParseException e) {
            throw new E2bException(400, "startedAfter must be a timestamp (RFC 3339); got " + given);
        }
    }

    private static boolean order(String given) {
        if (given == null || given.isBlank() || given.equals("desc")) {
            return false;
        }
        if (given.equals("asc")) {
            return true;
        }
        throw new E2bException(400, "order is asc or desc; got " + given);
    }
}
