package dev.hearth.server.images;

import static dev.hearth.server.tenancy.Action.COMPUTER_READ;
import static dev.hearth.server.tenancy.Action.COMPUTER_WRITE;

import dev.hearth.api.ApiException;
import dev.hearth.api.Json;
import dev.hearth.api.Validate;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.operations.Operations;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;

/**
 * A workspace's images: pull ahead of time (an {@code image.pull} operation), list, remove. A
 * computer created from a pulled reference starts at once with that digest.
 */
public final class ImagesApi {
    public static final String PULL_KIND = "image.pull";

    public record PullRequest(String reference) {
    }

    private ImagesApi() {
    }

    public static void register(RouteTable routes, Jdbi jdbi, ImageStore store, Images images, Operations operations,
                                Clock clock, Supplier<Set<String>> digestsInUse) {
        operations.register(new PullKind(jdbi, store, images, clock));
        routes.create("/workspaces/{ws}/images", Scope.workspace(COMPUTER_WRITE), ex -> {
            String reference = Validate.required("reference", ex.body(PullRequest.class).reference());
            Images.invalid(reference).ifPresent(problem -> {
                throw ApiException.invalidField("reference", problem);
            });
            var now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
            var image = jdbi.inTransaction(h -> store.begin(h, new WorkspaceImage(Ids.next(), ex.workspace().id(),
                    reference, "pulling", null, null, now, null)));
            var op = operations.begin(PULL_KIND, ex.workspace().id(), image.id(),
                    Json.mapper().createObjectNode().put("reference", reference));
            var body = new LinkedHashMap<String, Object>();
            body.put("image", jdbi.withHandle(h -> store.find(h, ex.workspace().id(), image.id())).orElseThrow());
            body.put("operations", List.of(op.id()));
            return Reply.status(202, body);
        });
        routes.add("GET", "/workspaces/{ws}/images", Scope.workspace(COMPUTER_READ), ex -> {
            var page = ex.page();
            var rows = jdbi.withHandle(h -> store.page(h, ex.workspace().id(), page));
            return Reply.ok(Reply.page("images", Page.of(rows, page.limit(), WorkspaceImage::id)));
        });
        routes.add("DELETE", "/workspaces/{ws}/images/{img}", Scope.workspace(COMPUTER_WRITE), ex -> {
            var image = jdbi.withHandle(h -> store.find(h, ex.workspace().id(), ex.param("img")))
                    .orElseThrow(() -> ApiException.notFound("image " + ex.param("img")));
            jdbi.useTransaction(h -> store.delete(h, image.id()));
            images.collectGarbage(digestsInUse.get());
            return Reply.ok(Map.of("image", image, "operations", List.of()));
        });
    }

    /** {@code image.pull}: pull and unpack; repeatable, so resumed after a crash. */
    private record PullKind(Jdbi jdbi, ImageStore store, Images images, Clock clock) implements OperationKind {
        @Override
        public String name() {
            return PULL_KIND;
        }

        @Override
        public boolean resumable() {
            return true;
        }

        @Override
        public void run(Work work) throws Failure {
            work.progress("pulling " + work.input().path("reference").asText());
            try {
                var image = images.resolve(work.input().path("reference").asText());
                jdbi.useTransaction(h -> store.finish(h, work.resource(), "ready", image.digest(), null, clock.instant()));
            } catch (Images.PullFailure e) {
                jdbi.useTransaction(h -> store.finish(h, work.resource(), "failed", null, e.getMessage(), clock.instant()));
                throw new Failure("image_pull_failed", e.getMessage());
            }
        }
    }
}
