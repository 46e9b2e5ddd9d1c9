package dev.hearth.fs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Trees streamed between nodes with GNU tar: owners, modes and times kept, sparse files (disk
 * images) sent without their holes.
 */
public final class Tar {
    private static final long LIMIT_SECONDS = 3600;

    private Tar() {
    }

    /** tar of {@code names} (relative to {@code root}) as it is made; {@link #finish} checks how it ended. */
    public static Process create(Path root, List<String> names) throws IOException {
        var command = new ArrayList<>(List.of("tar", "-c", "-S", "-C", root.toString(), "--"));
        command.addAll(names);
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** Writes tar of {@code names} (relative to {@code root}) to {@code out}. */
    public static void write(Path root, List<String> names, OutputStream out) throws IOException {
        var tar = create(root, names);
        try (var in = tar.getInputStream()) {
            in.transferTo(out);
        }
        finish(tar, "tar of " + names);
    }

    /** Unpacks a tar stream into {@code dir} (made if missing). */
    public static void unpack(InputStream tar, Path dir) throws IOException {
        Files.createDirectories(dir);
        var process = new ProcessBuilder("tar", "-x", "-C", dir.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        try (var in = process.getOutputStream()) {
            tar.transferTo(in);
        } catch (IOException e) {
            process.destroyForcibly();
            throw e;
        }
        finish(process, "the files sent could not be unpacked: tar");
    }

    /** Waits for a tar to end; throws unless it ended well. */
    public static void finish(Process tar, String what) throws IOException {
        try {
            if (!tar.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS) || tar.exitValue() != 0) {
                throw new IOException(what + " failed" + (tar.isAlive() ? "" : " (exit " + tar.exitValue() + ")"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + what);
        } finally {
            tar.destroyForcibly();
        }
    }
}
