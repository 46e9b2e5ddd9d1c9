package dev.hearth.server.computers;

import dev.hearth.server.checkpoints.Checkpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What of a computer asleep cold moves to another node, as paths in the data directory: its disk
 * (holding /data, its sandbox's state and its sleep image) or, for a computer made before disks had
 * sizes, its directory; each whole checkpoint's image and /data or disk; and the unpacked images
 * they were made from, which the receiving node may lack.
 */
record Luggage(List<Path> pieces) {

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

    /** The pieces as tar names them: relative to the data directory. */
    List<String> names(Dirs dirs) {
        return pieces.stream().map(p -> dirs.root().relativize(p).toString()).toList();
    }
}
