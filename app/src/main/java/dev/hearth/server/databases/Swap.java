package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.fs.Disk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The disks of a restore in place: the database's state at the moment is recovered apart, on disks of
 * a temporary id, then the database's own disks (and history) are renamed to the backup branch's and
 * the temporary ones to the database's. A journal, {@code restores/<id>}, written before the first
 * rename and removed after the last, lets the next start settle a restore a crash cut short: undone
 * when no disk was renamed yet, finished otherwise. So a database is as it was or fully restored.
 */
final class Swap {
    private final DatabaseHost host;
    private final Layout layout;
    private final String id;
    private final String backup;
    private final String temp;

    Swap(DatabaseHost host, String id, String backup, String temp) {
        this.host = host;
        this.layout = host.layout();
        this.id = id;
        this.backup = backup;
        this.temp = temp;
    }

    String id() {
        return id;
    }

    String backup() {
        return backup;
    }

    /** Makes the temporary disks from the base and replays them to the moment with a cluster of their own. */
    void recoverApart(MomentSource moment, Database db, String password) {
        host.makeClusterAt(temp, db.name(), moment, db.login().user(), password, db.settings().diskMb());
        var clusters = host.engine().clusters();
        try {
            var cluster = clusters.start(db.placement().version(), layout.data(temp), clusters.privateDir(layout.socketDir(temp)),
                    layout.log(temp), PortPool.freePort(), clusters.privateDir(layout.archive(temp)));
            clusters.stop(cluster);
        } catch (IOException | RuntimeException e) {
            drop();
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "database " + db.name() + " could not be recovered to "
                    + moment.target() + ": " + e.getMessage());
        }
    }

    void begin() throws IOException {
        Files.createDirectories(journals(layout));
        Files.writeString(journals(layout).resolve(id), backup + " " + temp + "\n");
    }

    /** The renames, then both databases' disks mounted again; the journal goes last. */
    void exchange(int diskMb) throws IOException {
        var disks = host.disks();
        if (!disks.release(id) || !disks.release(temp)) {
            throw new IOException("a disk is still in use");
        }
        forward();
        disks.mount(backup, diskMb);
        disks.mount(id, diskMb);
        Files.deleteIfExists(journals(layout).resolve(id));
    }

    /** After a failure: settled as {@link #finish} would, or (nothing begun) the temporary disks removed. */
    void abandon() {
        if (Files.exists(journals(layout).resolve(id))) {
            finish();
        } else {
            drop();
        }
    }

    /** Settles a journalled restore; true when it was finished, false when it was undone. */
    boolean finish() {
        try {
            boolean renaming = !Files.exists(layout.dataDisk(temp)) || !Files.exists(layout.dataDisk(id))
                    || Files.exists(layout.dataDisk(backup));
            if (renaming) {
                host.disks().release(temp);
                forward();
            } else {
                drop();
            }
            Files.deleteIfExists(journals(layout).resolve(id));
            return renaming;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Each rename once, in order, so that running it again after a crash completes it. */
    private void forward() throws IOException {
        move(layout.dataDisk(id), layout.dataDisk(backup));
        move(layout.walDisk(id), layout.walDisk(backup));
        move(layout.history(id), layout.history(backup));
        move(layout.dataDisk(temp), layout.dataDisk(id));
        move(layout.walDisk(temp), layout.walDisk(id));
        move(layout.history(temp), layout.history(id));
        Disk.deleteTree(layout.cluster(temp));
    }

    private static void move(Path from, Path to) throws IOException {
        if (Files.exists(from) && !Files.exists(to)) {
            Files.createDirectories(to.getParent());
            Files.move(from, to);
        }
    }

    private void drop() {
        host.dropApart(temp);
    }

    /** The restores a stopped server left journalled. */
    static List<Swap> interrupted(DatabaseHost host) {
        var found = new ArrayList<Swap>();
        Path dir = journals(host.layout());
        if (!Files.isDirectory(dir)) {
            return found;
        }
        try (Stream<Path> journals = Files.list(dir)) {
            for (Path journal : journals.toList()) {
                String[] ids = Files.readString(journal).strip().split(" ");
                found.add(new Swap(host, journal.getFileName().toString(), ids[0], ids[1]));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static Path journals(Layout layout) {
        return layout.root().resolve("restores");
    }
}
