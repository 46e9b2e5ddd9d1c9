package dev.hearth.sdks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.support.ChildRun;
import dev.hearth.support.HearthServerExtension;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.Repository;
import dev.hearth.support.TestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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

    private ChildRun run(Path dir, List<String> command) throws IOException, InterruptedException {
        return ChildRun.of(dir, command, Map.of(
                "HEARTH_URL", server.baseUrl(),
                "HEARTH_KEY_FILE", server.dataDir.resolve("admin-key.json").toString(),
                "HEARTH_TEST_COMPUTERS", HearthServerExtension.computersUnavailable().isEmpty() ? "1" : "0",
                "HEARTH_TEST_DATABASES", HearthServerExtension.databasesUnavailable().isEmpty() ? "1" : "0"), 5);
    }

    private static Path sdk(String name) {
        return Repository.root().resolve("sdks").resolve(name);
    }
}
