package dev.hearth.server.sandbox.runsc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.hearth.client.HearthClient;
import dev.hearth.server.sandbox.SandboxStatus;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** runsc's state files say what runsc list and runsc state say, for real sandboxes (needs root and runsc). */
@HearthServerTest(computers = true)
class StateFilesLiveTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;

    @Test
    void theFilesAgreeWithRunscAboutLiveAndDeletedSandboxes() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String kept = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "kept", "image", "hearth/busybox"))
                .path("computer").path("id").asText();
        String gone = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "gone", "image", "hearth/busybox"))
                .path("computer").path("id").asText();
        admin.delete("/computers/" + gone);
        Path root = server.dataDir.resolve("runsc");
        var files = new StateFiles(root);
        var runsc = TestComputers.sandboxes(root);
        var said = new TreeMap<String, String>();
        files.all().forEach((id, status) -> said.put(id, status.word()));
        assertEquals(runsc, said);
        assertEquals("running", runsc.get(kept + "-0001"), runsc.toString());
        assertEquals(Optional.of(SandboxStatus.RUNNING), files.state(kept + "-0001"));
        assertEquals(Optional.empty(), files.state(gone + "-0001"));
    }
}
