package dev.hearth.server.computers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What /data looks like from its metadata: every entry's inode, size, mtime and ctime. Only the
 * computer writes its /data, and every write moves a ctime, so two equal fingerprints taken around
 * a copy and a checkpoint prove that /data did not change in between: the copy then matches the
 * checkpoint's memory without pausing the computer for the copy. File times have the kernel's coarse
 * tick, so a fingerprint is refused when anything changed within {@link #QUIET} of it.
 */
record DataFingerprint(Map<String, List<Object>> entries) {
    static final Duration QUIET = Duration.ofMillis(50);

    /** The fingerprint, or empty when something changed too recently to tell later changes apart. */
    static Optional<DataFingerprint> ofQuiet(Path data) throws IOException {
        Instant quietSince = Instant.now().minus(QUIET);
        var print = of(data);
        for (var entry : print.entries().values()) {
            var modified = (FileTime) entry.get(2);
            var changed = (FileTime) entry.get(3);
            if (!modified.toInstant().isBefore(quietSince) || !changed.toInstant().isBefore(quietSince)) {
                return Optional.empty();
            }
        }
        return Optional.of(print);
    }

    static DataFingerprint of(Path data) throws IOException {
        var entries = new TreeMap<String, List<Object>>();
        try (Stream<Path> walk = Files.walk(data)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                var a = Files.readAttributes(p, "unix:ino,size,lastModifiedTime,ctime", LinkOption.NOFOLLOW_LINKS);
                entries.put(data.relativize(p).toString(), List.of(a.get("ino"), a.get("size"), a.get("lastModifiedTime"),
                        a.get("ctime")));
            }
        }
        return new DataFingerprint(entries);
    }
}
