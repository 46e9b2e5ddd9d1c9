package dev.hearth.bench;

import dev.hearth.server.agent.AgentClient;
import dev.hearth.server.agent.AgentEndpoint;
import dev.hearth.server.agent.AgentExec;
import dev.hearth.server.agent.AgentSecrets;
import dev.hearth.server.sandbox.Exec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where exec's overhead lives: on one sandbox, interleaved, raw {@code runsc exec}, the computer's
 * agent called directly (no HTTP, in this JVM), and the exec route of {@code hearth serve} running
 * in its own JVM, beside an HTTP round trip that does no work ({@code GET /health}); both HTTP steps
 * with the JDK's HttpClient and with a curl-like blocking client. Needs root and runsc. Arguments:
 * {@code [calls=100] [warm=150]}.
 */
public final class ExecBench {
    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int warm = args.length > 1 ? Integer.parseInt(args[1]) : 150;
        Path dataDir = Files.createTempDirectory("hearth-exec-bench").resolve("data");
        try (var hearth = ServedHearth.start(dataDir)) {
            var admin = hearth.admin();
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "c", "image", "hearth/busybox"))
                    .path("computer").path("id").asText();
            String root = dataDir.resolve("runsc").toString();
            String sandbox = id + "-0001";
            var request = new Exec.Request(List.of("/bin/true"), Map.of("PATH", "/bin"), "/", new byte[0], Duration.ofSeconds(60));
            var steps = new LinkedHashMap<String, Interleaved.Step>();
            steps.put("raw runsc exec", () -> ComputerBench.run("runsc", "--root", root, "exec", sandbox, "/bin/true"));
            // The computer's agent, straight from this JVM (its address is slot 64's, the first).
            var agentExec = new AgentExec(new AgentClient());
            var agent = new AgentEndpoint("169.254.1.2", sandbox, new AgentSecrets(dataDir.resolve("agent-key")).of(id));
            steps.put("agent exec, straight (no API)", () -> agentExec.run(agent, request, 1 << 20, () -> true));
            steps.put("HTTP GET /health (no work), JDK HttpClient", () -> admin.get("/health"));
            steps.put("HTTP exec route, JDK HttpClient", () -> admin.post("/computers/" + id + "/exec",
                    Map.of("command", List.of("/bin/true"))));
            var curlLike = hearth.blockingAdmin();
            steps.put("HTTP GET /health (no work), blocking client", () -> curlLike.send("GET", "/health", null));
            steps.put("HTTP exec route, blocking client", () -> curlLike.send("POST", "/computers/" + id + "/exec",
                    "{\"command\": [\"/bin/true\"]}"));
            var times = Interleaved.time(steps, warm, calls);
            System.out.println("| step | median ms |");
            System.out.println("|---|---|");
            times.forEach((step, values) -> System.out.printf("| %s | %.2f |%n", step,
                    Interleaved.percentile(values, 50)));
            System.out.printf("%nload average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
            admin.delete("/computers/" + id);
        } finally {
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
    }
}
