package dev.hearth.server.computers;

import dev.hearth.api.images.ImageState;
import dev.hearth.api.images.WorkspaceImage;
import dev.hearth.server.images.Image;
import dev.hearth.server.images.ImageStore;
import dev.hearth.server.images.Images;
import dev.hearth.server.pool.PoolStore;
import dev.hearth.server.store.Ids;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;

/**
 * The images computers run: one a workspace pulled already (unpacked here), pulled for a computer
 * and remembered among the workspace's images, and the digests that must stay unpacked.
 */
final class ComputerImages {
    private final Jdbi jdbi;
    private final Images images;
    private final ImageStore pulled;
    private final ComputerStore computers;
    private final Supplier<Set<String>> checkpointDigests;

    ComputerImages(Jdbi jdbi, Images images, ImageStore pulled, ComputerStore computers,
                   Supplier<Set<String>> checkpointDigests) {
        this.jdbi = jdbi;
        this.images = images;
        this.pulled = pulled;
        this.computers = computers;
        this.checkpointDigests = checkpointDigests;
    }

    /** The image if this workspace pulled the reference already and it is unpacked here. */
    Optional<Image> pulled(String workspace, String reference) {
        return jdbi.withHandle(h -> pulled.find(h, workspace, reference))
                .filter(i -> i.state() == ImageState.READY && i.digest() != null)
                .flatMap(i -> images.unpacked(reference, i.digest()));
    }

    /** Why a computer cannot name this image, if it cannot (see {@link Images#invalid}). */
    Optional<String> invalid(String reference) {
        return images.invalid(reference);
    }

    /** Pulls for a computer and remembers the reference in the workspace's images. */
    Image pull(Computer computer, Instant now) {
        var image = images.resolve(computer.image());
        if (!Images.isLocal(computer.image())) {
            jdbi.useTransaction(h -> {
                var record = pulled.begin(h, new WorkspaceImage(Ids.next(), computer.workspace(), computer.image(),
                        ImageState.PULLING, null, null, now, null));
                pulled.finish(h, record.id(), ImageState.READY, image.digest(), null, now);
            });
        }
        return image;
    }

    /** What the computer's sandbox was made from; pulled again if it is no longer unpacked. */
    Image ofRunning(Computer computer) {
        return images.unpacked(computer.image(), computer.imageDigest()).orElseGet(() -> images.resolve(computer.image()));
    }

    /** What a computer's next sandbox is restored on: the very digest it ran. */
    Image unpacked(Computer computer) {
        return images.unpacked(computer.image(), computer.imageDigest()).orElseThrow(() ->
                new Images.PullFailure("image " + computer.imageDigest() + " is no longer unpacked here"));
    }

    /** Whether the image of this digest is unpacked here, whatever its reference. */
    boolean hasDigest(String digest) {
        return images.unpacked("", digest).isPresent();
    }

    /** The directory an image of this digest is unpacked in (see {@link Images#unpackedAt}). */
    Path unpackedAt(String digest) {
        return images.unpackedAt(digest);
    }

    /** An image for the warm pool: built in, or pulled for no workspace in particular. */
    Image forPool(String reference) {
        return images.resolve(reference);
    }

    /** What a pooled sandbox was booted from, for the computer that claims it. */
    Image ofPooled(String reference, String digest) {
        return images.unpacked(reference, digest).orElseGet(() -> images.resolve(reference));
    }

    /** Digests that must stay unpacked: those of live computers, their checkpoints, the workspaces' images and the pool's. */
    Set<String> digestsInUse() {
        var keep = new HashSet<>(jdbi.withHandle(computers::digestsInUse));
        keep.addAll(jdbi.withHandle(new PoolStore(computers.node())::digests));
        keep.addAll(jdbi.withHandle(pulled::digests));
        keep.addAll(checkpointDigests.get());
        return keep;
    }

    void collectGarbageLater() {
        Thread.ofVirtual().start(() -> images.collectGarbage(digestsInUse()));
    }
}
