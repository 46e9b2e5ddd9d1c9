package dev.hearth.server.databases;

import dev.hearth.fs.Disk;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the files of deleted databases and checkpoints, and orphan directories, go: a rename now,
 * under the database's lock, and the slow removal later on a thread of its own.
 */
final class Trash {
    private static final Logger LOG = LoggerFactory.getLogger(Trash.class);
    private final Path dir;
    // The latest removal of trashed files; close waits for it so that nothing runs on after.
    private Thread emptying;

    Trash(Path dir) {
        this.dir = dir;
    }

    /** Moves {@code tree} into the trash; if that fails it is removed here and now. */
    void put(Path tree) {
        try {
            if (Files.exists(tree)) {
                Files.createDirectories(dir);
                Files.move(tree, dir.resolve(Ids.next()));
            }
        } catch (IOException e) {
            LOG.warn("cannot move {} to the trash: {}", tree, e.toString());
            Disk.deleteTree(tree);
        }
    }

    synchronized void emptyLater() {
        emptying = Thread.ofVirtual().name("database-trash").start(() -> {
            try {
                Disk.deleteTree(dir);
            } catch (RuntimeException e) {
                LOG.warn("cannot empty {}: {}", dir, e.toString());
            }
        });
    }

    synchronized void await() {
        if (emptying != null) {
            try {
                emptying.join(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
