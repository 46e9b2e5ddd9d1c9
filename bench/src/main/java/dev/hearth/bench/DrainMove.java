package dev.hearth.bench;

import dev.hearth.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a drain's move of a sleeping computer costs, beside the raw primitive: a computer on b with
 * {@code mib} MiB of random bytes in /data sleeps, b drains, and the computer's files stream to a.
 * Reported: the stream as b's log times it (tar, HTTP, unpack, placing, the store), and in the same
 * run GNU tar piped into tar of the very files that arrived on a, from a's data directory to a
 * scratch directory.
 */
final class DrainMove {
    private static final Pattern SENT = Pattern.compile("(\\d+) MiB sent to node a in (\\d+) ms");

    private DrainMove() {
    }

    static void measure(Path root, String store, String ws, ServedHearth a, ServedHearth b, int mib) throws Exception {
        var admin = a.admin();
        var computer = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "mover", "image",
                "hearth/busybox")).path("computer");
        String id = computer.path("id").asText();
        var wrote = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c",
                "dd if=/dev/urandom of=/data/big bs=1048576 count=" + mib + " 2>&1 && sync")));
        if (wrote.path("exit_code").asInt() != 0) {
            throw new IllegalStateException("could not write /data/big: " + wrote);
        }
        admin.post("/computers/" + id + "/sleep", Map.of());
        long start = System.nanoTime();
        cli("admin", "nodes", "drain", "b", "--store", store);
        try {
            while (!admin.get("/computers/" + id).path("computer").path("node").asText().equals("a")) {
                if (System.nanoTime() - start > 300_000_000_000L) {
                    throw new IllegalStateException("the computer did not move in 5 minutes");
                }
                Thread.sleep(50);
            }
        } finally {
            cli("admin", "nodes", "undrain", "b", "--store", store);
        }
        double wall = (System.nanoTime() - start) / 1e6;
        var sent = SENT.matcher(Files.readString(root.resolve("b.log")));
        String streamed = "?";
        String bytes = "?";
        while (sent.find()) {
            bytes = sent.group(1);
            streamed = sent.group(2);
        }
        double raw = rawTar(root.resolve("a"), id);
        System.out.printf("%n| drain move, %d MiB in /data | ms |%n|---|---|%n", mib);
        System.out.printf("| drain to moved (b goes cold first, passes every 2 s) | %.0f |%n", wall);
        System.out.printf("| the stream, %s MiB sent (b's log) | %s |%n", bytes, streamed);
        System.out.printf("| raw: tar -cS the same files, piped into tar -x | %.0f |%n", raw);
        String woke = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("sh", "-c",
                "wc -c < /data/big"))).path("stdout").asText().strip();
        if (!woke.equals(Long.toString((long) mib << 20))) {
            throw new IllegalStateException("after the move /data/big holds " + woke + " bytes");
        }
        admin.delete("/computers/" + id);
    }

    /** tar -cS of what arrived (the computer's disk, the image it runs) piped into tar -x. */
    private static double rawTar(Path dataDir, String id) throws Exception {
        Path scratch = Files.createTempDirectory(dataDir.getParent(), "raw");
        try (var images = Files.list(dataDir.resolve("images"))) {
            var names = new StringBuilder("disks/" + id + ".img");
            images.filter(Files::isDirectory).forEach(p -> names.append(" images/").append(p.getFileName()));
            long start = System.nanoTime();
            var pipe = new ProcessBuilder("sh", "-c", "tar -cS -C " + dataDir + " " + names + " | tar -x -C " + scratch)
                    .inheritIO().start();
            if (pipe.waitFor() != 0) {
                throw new IllegalStateException("tar | tar failed");
            }
            return (System.nanoTime() - start) / 1e6;
        } finally {
            new ProcessBuilder("rm", "-rf", scratch.toString()).start().waitFor();
        }
    }

    /** {@code hearth ARGS}, the CLI run in this process; throws unless it exits 0. */
    static void cli(String... args) {
        var out = new ByteArrayOutputStream();
        int code = Cli.run(args, new Cli.Context(Map.of(), System.in, new PrintStream(out, true), System.err,
                Path.of(System.getProperty("java.io.tmpdir")).resolve("hearth-bench-cli")));
        if (code != 0) {
            throw new IllegalStateException("hearth " + String.join(" ", args) + ": " + out);
        }
    }
}
