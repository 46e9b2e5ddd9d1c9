package dev.hearth.bench;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;

/**
 * Files through the agent against the same bytes piped through {@code runsc exec cat}, in one run
 * on one computer: upload ({@code PUT .../files} against {@code runsc exec sh -c 'cat > F'}) and
 * download ({@code GET .../files} against {@code runsc exec cat F}), in MiB/s. Needs root and runsc.
 * Arguments: {@code [mib=100] [rounds=3]}.
 */
public final class FilesBench {
    public static void main(String[] args) throws Exception {
        int mib = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Path dataDir = Files.createTempDirectory("hearth-files-bench").resolve("data");
        Path payload = Files.createTempFile("hearth-files-bench", ".bin");
        try (var hearth = ServedHearth.start(dataDir)) {
            writeRandom(payload, (long) mib << 20);
            var admin = hearth.admin();
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "c", "image", "hearth/busybox",
                    "resources", Map.of("disk_mb", 4 * mib + 512))).path("computer").path("id").asText();
            String root = dataDir.resolve("runsc").toString();
            String sandbox = id + "-0001";
            String files = "/computers/" + id + "/files?path=";
            System.out.printf("| round | upload raw MiB/s | upload Hearth MiB/s | ratio | download raw MiB/s | download Hearth MiB/s | ratio |%n");
            System.out.println("|---|---|---|---|---|---|---|");
            for (int round = 1; round <= rounds; round++) {
                double rawUp = rate(mib, () -> runscExec(root, sandbox, payload, null,
                        "/.hearth/busybox", "sh", "-c", "cat > /data/raw.bin"));
                double apiUp = rate(mib, () -> admin.upload(files + "/data/api.bin", "application/octet-stream",
                        () -> open(payload)));
                double rawDown = rate(mib, () -> runscExec(root, sandbox, null, OutputStream.nullOutputStream(),
                        "/.hearth/busybox", "cat", "/data/raw.bin"));
                double apiDown = rate(mib, () -> {
                    try (var in = admin.download(files + "/data/api.bin")) {
                        in.transferTo(OutputStream.nullOutputStream());
                    }
                });
                System.out.printf("| %d | %.0f | %.0f | %.1fx | %.0f | %.0f | %.1fx |%n", round, rawUp, apiUp, apiUp / rawUp,
                        rawDown, apiDown, apiDown / rawDown);
            }
            System.out.printf("%nload average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
            admin.delete("/computers/" + id);
        } finally {
            Files.deleteIfExists(payload);
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    private static double rate(int mib, Step step) throws Exception {
        long t = System.nanoTime();
        step.run();
        return mib / ((System.nanoTime() - t) / 1e9);
    }

    /** runsc exec with stdin from a file (or none) and stdout to a stream (or discarded). */
    private static void runscExec(String root, String sandbox, Path in, OutputStream out, String... command)
            throws Exception {
        var argv = new java.util.ArrayList<>(java.util.List.of("runsc", "--root", root, "exec", sandbox));
        argv.addAll(java.util.List.of(command));
        var builder = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.redirectInput(in == null ? ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())
                : ProcessBuilder.Redirect.from(in.toFile()));
        var process = builder.start();
        try (var stdout = process.getInputStream()) {
            stdout.transferTo(out == null ? OutputStream.nullOutputStream() : out);
        }
        if (process.waitFor() != 0) {
            throw new IllegalStateException("runsc exec failed: " + String.join(" ", argv));
        }
    }

    private static InputStream open(Path file) {
        try {
            return Files.newInputStream(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void writeRandom(Path file, long bytes) throws Exception {
        var random = new Random(1);
        byte[] block = new byte[1 << 20];
        try (var out = Files.newOutputStream(file)) {
            for (long left = bytes; left > 0; left -= block.length) {
                random.nextBytes(block);
                out.write(block, 0, (int) Math.min(block.length, left));
            }
        }
    }
}
