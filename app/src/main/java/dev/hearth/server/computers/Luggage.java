package dev.hearth.server.computers;

import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.fs.Disk;
import dev.hearth.server.process.Commands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What of a computer asleep cold moves to another node, as paths in the data directory: its disk
 * (holding /data, its sandbox's state and its sleep image) and the directory it mounts on; each whole
 * checkpoint's image and /data or disk; and the unpacked images
 * they were made from, which the receiving node may lack.
 */
record Luggage(List<Path> pieces) {
    private static final Duration MOVE = Duration.ofMinutes(1);

    /** Every piece a move of {@code c} may hold, present or not: what a receiving node accepts. */
    static Luggage of(Computer c, List<Checkpoint> checkpoints, Dirs dirs, Function<String, Path> imageDir) {
        var pieces = new ArrayList<Path>(List.of(dirs.disk(c.id()), dirs.computer(c.id())));
        var digests = new LinkedHashSet<String>();
        digests.add(c.imageDigest());
        for (var k : checkpoints) {
            pieces.add(dirs.checkpoint(k.id()));
            pieces.add(dirs.checkpointDisk(k.id()));
            if (k.imageDigest() != null) {
                digests.add(k.imageDigest());
            }
        }
        digests.stream().filter(d -> d != null).map(imageDir).forEach(pieces::add);
        return new Luggage(List.copyOf(pieces));
    }

    /**
     * What the sending node sends: the pieces it has, without a computer's directory when a disk
     * holds it (the directory is that disk's mount point), without images the receiver has.
     */
    Luggage toSend(Dirs dirs, String computerId, Predicate<Path> receiverLacks) {
        boolean ownDisk = Files.exists(dirs.disk(computerId));
        return new Luggage(pieces.stream().filter(Files::exists)
                .filter(p -> !(ownDisk && p.equals(dirs.computer(computerId))))
                .filter(p -> !p.startsWith(dirs.root().resolve("images")) || receiverLacks.test(p)).toList());
    }

    /**
     * Moves each piece that arrived in {@code staging} into its place, replacing what was there,
     * and notes it in {@code placed}; an image unpacked here already is kept (images never change)
     * and is never noted, so that undoing a failed arrival leaves images alone.
     */
    void placeFrom(Path staging, Dirs dirs, List<Path> placed) {
        for (Path piece : pieces) {
            Path arrived = staging.resolve(dirs.root().relativize(piece));
            boolean image = piece.startsWith(dirs.root().resolve("images"));
            if (!Files.exists(arrived) || image && Files.exists(piece)) {
                continue;
            }
            if (!image) {
                Disk.deleteTree(piece);
                placed.add(piece);
            }
            Commands.check(List.of("mkdir", "-p", piece.getParent().toString()), MOVE);
            Commands.check(List.of("mv", "-T", arrived.toString(), piece.toString()), MOVE);
        }
    }

    /** The pieces as tar names them: relative to the data directory. */
    List<String> names(Dirs dirs) {
        return pieces.stream().map(p -> dirs.root().relativize(p).toString()).toList();
    }
}
