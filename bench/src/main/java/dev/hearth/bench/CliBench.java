package dev.hearth.bench;

import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.fs.Disk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * How long a CLI command takes from the shell, as a person waits for it: {@code ./hearth} (the
 * launcher with its AOT cache and the token kept between runs), the same jar started plainly with
 * no token kept (how every command ran before), and curl sending the same request with a token,
 * the floor, measured in the same run against one {@code hearth serve}. {@code exec} needs root and
 * runsc; without them its row is left out.
 *
 * <p>Usage: {@code bench/run CliBench [runs=15]}
 */
public final class CliBench {
    private record Case(String name, List<String> cli, List<String> curl) {
    }

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        Path dir = Files.createTempDirectory("hearth-clibench");
        try (var served = ServedHearth.start(dir.resolve("data"))) {
            Path keyFile = dir.resolve("data/admin-key.json");
            HearthClient admin = served.admin();
            String token = KeyFileTokens.read(keyFile).token(admin).orElseThrow();
            String ws = admin.create("/workspaces", Map.of("name", "clibench")).path("workspace").path("id").asText();
            var cases = new ArrayList<>(List.of(
                    new Case("me", List.of("me"), curl(token, "GET", admin.baseUrl() + "/me", null)),
                    new Case("computers list", List.of("computers", "list", "-w", "clibench"),
                            curl(token, "GET", admin.baseUrl() + "/workspaces/" + ws + "/computers", null))));
            computer(admin, ws).ifPresent(id -> cases.add(new Case("exec box -- true",
                    List.of("exec", "-w", "clibench", "box", "--", "true"),
                    curl(token, "POST", admin.baseUrl() + "/computers/" + id + "/exec", "{\"command\":[\"true\"]}"))));
            var env = new HashMap<>(Map.of("HEARTH_URL", admin.baseUrl(), "HEARTH_KEY_FILE", keyFile.toString(),
                    "HEARTH_CONFIG_DIR", dir.resolve("config").toString()));
            // Unmeasured rounds first: a server just started is still compiling its hot paths on these
            // two cores, which would be charged to whichever case comes first.
            for (var c : cases) {
                for (int i = 0; i < 5; i++) {
                    run(concat(List.of("./hearth"), c.cli()), env);
                    run(c.curl(), env);
                }
            }
            System.out.printf("| command | ./hearth ms | plain java -jar, no kept token ms | curl ms | ./hearth / curl |%n");
            System.out.printf("|---|---|---|---|---|%n");
            for (var c : cases) {
                double launcher = median(runs, () -> run(concat(List.of("./hearth"), c.cli()), env));
                double plain = median(runs, () -> {
                    var fresh = new HashMap<>(env);
                    fresh.put("HEARTH_CONFIG_DIR", dir.resolve("fresh-" + UUID.randomUUID()).toString());
                    return run(concat(List.of(java(), "--enable-native-access=ALL-UNNAMED", "-jar",
                            "app/target/hearth.jar"), c.cli()), fresh);
                });
                double floor = median(runs, () -> run(c.curl(), env));
                System.out.printf("| %s | %.0f | %.0f | %.0f | %.1f |%n", c.name(), launcher, plain, floor, launcher / floor);
            }
            cases.stream().filter(c -> c.name().startsWith("exec")).findAny()
                    .ifPresent(c -> admin.delete("/computers/box?workspace=" + ws));
        } finally {
            Disk.deleteTree(dir);
        }
    }

    /** A computer named box, ready for exec; empty where computers cannot run here. */
    private static Optional<String> computer(HearthClient admin, String ws) {
        try {
            var r = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "box", "image", "hearth/busybox"),
                    Map.of("Idempotency-Key", UUID.randomUUID().toString()));
            if (r.status() != 201) {
                System.out.println("(no exec row: " + r.body() + ")");
                return Optional.empty();
            }
            return Optional.of(r.body().path("computer").path("id").asText());
        } catch (RuntimeException e) {
            System.out.println("(no exec row: " + e.getMessage() + ")");
            return Optional.empty();
        }
    }

    private static List<String> curl(String token, String method, String url, String body) {
        var command = new ArrayList<>(List.of("curl", "-sf", "-o", "/dev/null", "-X", method,
                "-H", "Authorization: Bearer " + token));
        if (body != null) {
            command.addAll(List.of("-H", "Content-Type: application/json", "--data", body));
        }
        command.add(url);
        return command;
    }

    private interface Timed {
        double ms() throws Exception;
    }

    private static double median(int runs, Timed timed) throws Exception {
        double[] ms = new double[runs];
        for (int i = 0; i < runs; i++) {
            ms[i] = timed.ms();
        }
        Arrays.sort(ms);
        return ms[runs / 2];
    }

    /** Runs a command to its end and answers how long it took, in milliseconds; it must succeed. */
    private static double run(List<String> command, Map<String, String> env) throws Exception {
        var builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        long start = System.nanoTime();
        var process = builder.start();
        byte[] out = process.getInputStream().readAllBytes();
        int code = process.waitFor();
        double ms = (System.nanoTime() - start) / 1e6;
        if (code != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + code + ": " + new String(out));
        }
        return ms;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        var all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
