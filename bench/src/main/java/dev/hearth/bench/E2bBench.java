package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * E2B's SDK against Hearth beside Hearth's own API, in one run on one server: {@code Sandbox.create}
 * to its first {@code commands.run} against a create and a first exec through {@code /v1}; and a
 * {@code commands.run('true')} round trip against a {@code /v1} exec of the very command the SDK
 * composes ({@code /bin/bash -l -c true}), and of {@code true} alone. Both sides are driven from
 * one Node.js process (bench/e2b/bench.mjs), interleaved. Goals: create at most 1.2x Hearth's own,
 * a run at most 1.1x its exec + 2 ms.
 *
 * <pre>bench/run E2bBench [rounds=10] [calls=100]</pre>
 */
public final class E2bBench {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        JsonNode result;
        try (var rig = E2bRig.start(false)) {
            var env = new java.util.HashMap<>(rig.env());
            env.putAll(Map.of("HEARTH_V1", rig.hearth.baseUrl(), "HEARTH_WS", rig.workspace,
                    "HEARTH_IMAGE", rig.base));
            result = node(env, rounds, calls);
        }
        var create = result.path("create");
        var run = result.path("run");
        double e2bCreate = median(create.path("e2b"));
        double v1Create = median(create.path("v1"));
        double e2bRun = median(run.path("e2b"));
        double v1Run = median(run.path("v1"));
        System.out.printf("%-52s %10s %10s%n", "", "median ms", "p90 ms");
        row("Sandbox.create + first commands.run (E2B SDK)", create.path("e2b"));
        row("POST /v1 computers + first exec (fetch)", create.path("v1"));
        row("commands.run('true') (E2B SDK)", run.path("e2b"));
        row("POST /v1 exec /bin/bash -l -c true as user (fetch)", run.path("v1"));
        row("POST /v1 exec true as user (fetch)", run.path("v1True"));
        System.out.printf("%ncreate: %.2fx Hearth's own (goal: at most 1.2x) %s%n", e2bCreate / v1Create,
                e2bCreate <= 1.2 * v1Create ? "met" : "MISSED");
        System.out.printf("run: %.2fx Hearth's own exec of the same command, %+.1f ms (goal: at most 1.1x + 2 ms) %s%n",
                e2bRun / v1Run, e2bRun - v1Run, e2bRun <= 1.1 * v1Run + 2 ? "met" : "MISSED");
    }

    private static JsonNode node(Map<String, String> env, int rounds, int calls) throws Exception {
        // Run from bench/target/e2b, where its node_modules are.
        var builder = new ProcessBuilder("node", E2bRig.NODE.resolve("bench.mjs").toString(),
                Integer.toString(rounds), Integer.toString(calls)).directory(E2bRig.NODE.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(env);
        var process = builder.start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(30, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IllegalStateException("bench.mjs failed: " + new String(out, StandardCharsets.UTF_8));
        }
        String text = new String(out, StandardCharsets.UTF_8).strip();
        return Json.mapper().readTree(text.substring(text.lastIndexOf('\n') + 1));
    }

    private static void row(String name, JsonNode samples) {
        System.out.printf("%-52s %10.1f %10.1f%n", name, median(samples), percentile(samples, 0.9));
    }

    static double median(JsonNode samples) {
        return percentile(samples, 0.5);
    }

    private static double percentile(JsonNode samples, double p) {
        var values = new ArrayList<Double>();
        samples.forEach(v -> values.add(v.asDouble()));
        values.sort(null);
        return values.get((int) Math.min(values.size() - 1, Math.floor(p * values.size())));
    }
}
