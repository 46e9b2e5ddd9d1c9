package dev.hearth.server.images;

import dev.hearth.api.ApiException;
import dev.hearth.api.Json;
import dev.hearth.api.Validate;
import dev.hearth.api.images.ImageState;
import dev.hearth.api.images.WorkspaceImage;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.operations.Operation;
import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.operations.Operations;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;

/**
 * A workspace's images: pulled ahead of time (an {@code image.pull} operation, repeatable, so
 * resumed after a crash), listed, removed. A computer created from a pulled reference starts at
 * once with that digest.
 */
public final class ImageService {
    public static final String PULL_KIND = "image.pull";

    /** A pull begun: the image (pulling) and the operation to follow. */
    public record Pulling(WorkspaceImage image, Operation operation) {
    }

    private final Jdbi jdbi;
    private final ImageStore store;
    private final Images images;
    private final Operations operations;
    private final Clock clock;
    private final Supplier<Set<String>> digestsInUse;

    public ImageService(Jdbi jdbi, ImageStore store, Images images, Operations operations, Clock clock,
                        Supplier<Set<String>> digestsInUse) {
        this.jdbi = jdbi;
        this.store = store;
        this.images = images;
        this.operations = operations;
        this.clock = clock;
        this.digestsInUse = digestsInUse;
        operations.register(OperationKind.of(PULL_KIND, true, this::pullWork));
    }

    public Pulling pull(Workspace workspace, String requested) {
        String reference = Validate.required("reference", requested);
        images.invalid(reference).ifPresent(problem -> {
            throw ApiException.invalidField("reference", problem);
        });
        var image = jdbi.inTransaction(h -> store.begin(h, new WorkspaceImage(Ids.next(), workspace.id(), reference,
                ImageState.PULLING, null, null, now(), null)));
        var op = operations.begin(PULL_KIND, workspace.id(), image.id(),
                Json.mapper().createObjectNode().put("reference", reference));
        return new Pulling(jdbi.withHandle(h -> store.find(h, workspace.id(), image.id())).orElseThrow(), op);
    }

    public Page<WorkspaceImage> list(Workspace workspace, PageRequest page) {
        var rows = jdbi.withHandle(h -> store.page(h, workspace.id(), page));
        return Page.of(rows, page.limit(), WorkspaceImage::id);
    }

    /** Forgets the workspace's pull and drops unpacked images nothing uses any more. */
    public WorkspaceImage remove(Workspace workspace, String ref) {
        var image = jdbi.withHandle(h -> store.find(h, workspace.id(), ref))
                .orElseThrow(() -> ApiException.notFound("image " + ref));
        jdbi.useTransaction(h -> store.delete(h, image.id()));
        images.collectGarbage(digestsInUse.get());
        return image;
    }

    private void pullWork(OperationKind.Work work) throws OperationKind.Failure {
        work.progress("pulling " + work.input().path("reference").asText());
        try {
            var image = images.resolve(work.input().path("reference").asText());
            jdbi.useTransaction(h -> store.finish(h, work.resource(), ImageState.READY, image.digest(), null,
                    clock.instant()));
        } catch (Images.PullFailure e) {
            jdbi.useTransaction(h -> store.finish(h, work.resource(), ImageState.FAILED, null, e.getMessage(),
                    clock.instant()));
            throw new OperationKind.Failure("image_pull_failed", e.getMessage());
        }
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
