package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * E2B's own JS SDK tests, as they are in its repository ({@code packages/js-sdk/tests} against its
 * {@code src}, with vitest), run against a fresh {@code hearth serve} by domain over HTTPS, as E2B's
 * CI runs them against E2B (E2B_API_KEY and E2B_DOMAIN). One vitest run a file, so that one file's
 * failure says nothing about another's; prints a Markdown table of the files' tests passed, failed
 * and skipped, and each failure's first line (docs/e2b.md publishes one).
 *
 * <pre>bench/run E2bSuite E2B_CHECKOUT [TEST_FILE_OR_DIR...]   (default: every file of tests/ that is not a browser,
 * runtime or template-build file)</pre>
 */
public final class E2bSuite {
    private static final Path WORK = Path.of("bench/target/e2b-suite").toAbsolutePath();
    private static final String CONFIG = """
            import { defineConfig } from 'vitest/config'
            // E2B's unit project (vitest.config.mts), with longer timeouts: a first sandbox unpacks its image.
            export default defineConfig({
              test: {
                include: ['tests/**/*.test.ts'],
                exclude: ['tests/runtimes/**', 'tests/template/**', 'tests/connectionConfig.test.ts'],
                isolate: true, globals: false, testTimeout: 60_000, hookTimeout: 60_000, environment: 'node',
                setupFiles: ['tests/globalFetchFallback.setup.ts'], deps: { interopDefault: true },
                env: { ...(process.env as Record<string, string>) },
              },
            })
            """;

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: bench/run E2bSuite E2B_CHECKOUT [TEST_FILE_OR_DIR...]");
            System.exit(2);
        }
        Path sdk = copySdk(Path.of(args[0]).toAbsolutePath().resolve("packages/js-sdk"));
        var files = files(sdk, args.length > 1 ? List.of(args).subList(1, args.length) : List.of("tests"));
        var rows = new ArrayList<Row>();
        try (var rig = E2bRig.start(true)) {
            for (String file : files) {
                var row = run(sdk, file, rig.env());
                rows.add(row);
                System.err.printf("%s: %d passed, %d failed, %d skipped%n", file, row.passed, row.failed, row.skipped);
            }
        }
        String table = table(rows);
        Files.writeString(WORK.resolve("e2b-suite.md"), table);
        System.out.println(table);
    }

    private record Row(String file, int passed, int failed, int skipped, List<String> failures) {
    }

    /** The SDK's source and tests as they are, beside the runner's packages. */
    private static Path copySdk(Path from) throws Exception {
        if (!Files.isDirectory(from.resolve("tests"))) {
            throw new IllegalArgumentException(from + " has no tests/: pass a checkout of github.com/e2b-dev/E2B");
        }
        E2bRig.installNode();
        Path sdk = WORK.resolve("sdk");
        E2bRig.run(List.of("rm", "-rf", sdk.toString()), Path.of("."), Map.of(), 1);
        Files.createDirectories(sdk);
        for (String part : List.of("src", "tests", "package.json", "tsconfig.json")) {
            E2bRig.run(List.of("cp", "-a", from.resolve(part).toString(), sdk.toString()), Path.of("."), Map.of(), 1);
        }
        Files.createSymbolicLink(sdk.resolve("node_modules"), E2bRig.NODE.resolve("node_modules"));
        Files.writeString(sdk.resolve("vitest.hearth.mts"), CONFIG);
        return sdk;
    }

    private static List<String> files(Path sdk, List<String> given) throws IOException {
        var files = new ArrayList<String>();
        for (String g : given) {
            try (Stream<Path> walk = Files.walk(sdk.resolve(g))) {
                walk.map(p -> sdk.relativize(p).toString()).filter(p -> p.endsWith(".test.ts"))
                        .filter(p -> !p.startsWith("tests/runtimes/") && !p.startsWith("tests/template/")
                                && !p.equals("tests/connectionConfig.test.ts"))
                        .sorted().forEach(files::add);
            }
        }
        return files;
    }

    private static Row run(Path sdk, String file, Map<String, String> env) throws Exception {
        Path report = WORK.resolve("reports").resolve(file.replace('/', '_') + ".json");
        Files.createDirectories(report.getParent());
        Files.deleteIfExists(report);
        var command = List.of("node", "node_modules/vitest/vitest.mjs", "run", "--config", "vitest.hearth.mts",
                "--reporter=json", "--outputFile=" + report, file);
        var builder = new ProcessBuilder(command).directory(sdk.toFile()).redirectErrorStream(true)
                .redirectOutput(WORK.resolve("reports").resolve(file.replace('/', '_') + ".log").toFile());
        builder.environment().putAll(new HashMap<>(env));
        var process = builder.start();
        if (!process.waitFor(15, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
        }
        if (!Files.exists(report)) {
            return new Row(file, 0, 1, 0, List.of("vitest wrote no report (see " + report.getFileName() + ".log)"));
        }
        return row(file, Json.mapper().readTree(report.toFile()));
    }

    private static Row row(String file, JsonNode report) {
        var failures = new ArrayList<String>();
        for (JsonNode suite : report.path("testResults")) {
            for (JsonNode test : suite.path("assertionResults")) {
                if (test.path("status").asText().equals("failed")) {
                    String message = test.path("failureMessages").path(0).asText("").strip().split("\n")[0];
                    failures.add(test.path("title").asText() + ": " + message);
                }
            }
            if (suite.path("assertionResults").isEmpty() && suite.path("status").asText().equals("failed")) {
                failures.add("the file did not load: " + suite.path("message").asText().split("\n")[0]);
            }
        }
        return new Row(file, report.path("numPassedTests").asInt(), Math.max(report.path("numFailedTests").asInt(),
                failures.size()), report.path("numPendingTests").asInt() + report.path("numTodoTests").asInt(),
                failures);
    }

    private static String table(List<Row> rows) {
        var out = new StringBuilder("| file | passed | failed | skipped |\n|---|---|---|---|\n");
        int passed = 0;
        int failed = 0;
        int skipped = 0;
        for (var r : rows) {
            out.append("| ").append(r.file().replaceFirst("^tests/", "")).append(" | ").append(r.passed()).append(" | ")
                    .append(r.failed()).append(" | ").append(r.skipped()).append(" |\n");
            passed += r.passed();
            failed += r.failed();
            skipped += r.skipped();
        }
        out.append("| **all ").append(rows.size()).append(" files** | ").append(passed).append(" | ").append(failed)
                .append(" | ").append(skipped).append(" |\n\nFailures:\n\n");
        for (var r : rows) {
            for (String f : r.failures()) {
                out.append("- ").append(r.file().replaceFirst("^tests/", "")).append(": ")
                        .append(f.replace("|", "\\|")).append('\n');
            }
        }
        return out.toString();
    }
}
