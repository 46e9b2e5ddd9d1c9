package dev.hearth.sdks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.support.HearthServerExtension;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.Repository;
import dev.hearth.support.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Python and TypeScript SDKs' own test suites, run against this real server (their answers are
 * checked against the OpenAPI document like every other). Their runners' closing lines are printed.
 */
@HearthServerTest
class SdkTest {
    private static final Pattern PYTHON_RAN = Pattern.compile("Ran (\\d+) tests?");
    private static final Pattern NODE_PASS = Pattern.compile("(?m)^# pass (\\d+)");
    private static final Pattern NODE_FAIL = Pattern.compile("(?m)^# fail (\\d+)");

    @Injected
    private TestServer server;

    @Test
    void thePythonSdkPassesItsTests() throws Exception {
        String python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        var run = run(sdk("python"), List.of(python, "-m", "unittest", "discover", "-s", "tests", "-v"));
        var ran = PYTHON_RAN.matcher(run.output());
        assertTrue(ran.find() && Integer.parseInt(ran.group(1)) > 0, run.output());
        assertEquals(0, run.exit(), run.output());
    }

    @Test
    void theTypeScriptSdkPassesItsTests() throws Exception {
        var run = run(sdk("typescript"), List.of("node", "--test", "test/"));
        var pass = NODE_PASS.matcher(run.output());
        var fail = NODE_FAIL.matcher(run.output());
        assertTrue(pass.find() && Integer.parseInt(pass.group(1)) > 0, run.output());
        assertTrue(fail.find() && fail.group(1).equals("0"), run.output());
        assertEquals(0, run.exit(), run.output());
    }

    private record Run(int exit, String output) {
    }

    private Run run(Path dir, List<String> command) throws IOException, InterruptedException {
        var builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().putAll(Map.of(
                "HEARTH_URL", server.baseUrl(),
                "HEARTH_KEY_FILE", server.dataDir.resolve("admin-key.json").toString(),
                "HEARTH_TEST_COMPUTERS", HearthServerExtension.computersUnavailable().isEmpty() ? "1" : "0",
                "HEARTH_TEST_DATABASES", HearthServerExtension.databasesUnavailable().isEmpty() ? "1" : "0"));
        builder.environment().remove("HEARTH_TOKEN");
        var process = builder.start();
        var out = new ByteArrayOutputStream();
        var reader = Thread.ofVirtual().start(() -> {
            try {
                process.getInputStream().transferTo(out);
            } catch (IOException e) {
                // the process was killed; what was read is kept
            }
        });
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
        }
        reader.join();
        String output = out.toString(StandardCharsets.UTF_8);
        String[] lines = output.strip().split("\n");
        // The runner's closing lines, for the CI log.
        int from = Math.max(0, lines.length - 12);
        System.out.println(dir.getFileName() + " SDK:\n" + String.join("\n", List.of(lines).subList(from, lines.length)));
        return new Run(process.exitValue(), output);
    }

    private static Path sdk(String name) {
        return Repository.root().resolve("sdks").resolve(name);
    }
}
