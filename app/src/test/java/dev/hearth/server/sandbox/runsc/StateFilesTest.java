package dev.hearth.server.sandbox.runsc;

import static dev.hearth.server.sandbox.SandboxStatus.PAUSED;
import static dev.hearth.server.sandbox.SandboxStatus.STOPPED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How runsc's state files are read, without runsc (StateFilesLiveTest compares them with runsc itself). */
class StateFilesTest {
    @TempDir
    Path root;

    private void write(String id, String json) throws Exception {
        Files.writeString(root.resolve(id + "_sandbox:" + id + ".state"), json);
    }

    @Test
    void aSandboxWhoseProcessIsNotThisRootsRunscIsStopped() throws Exception {
        long notASandbox = ProcessHandle.current().pid();
        write("a-0001", "{\"id\":\"a-0001\",\"status\":\"running\",\"sandbox\":{\"pid\":" + notASandbox + "}}");
        write("b-0001", "{\"id\":\"b-0001\",\"status\":\"created\",\"sandbox\":{\"pid\":0}}");
        write("c-0001", "{\"id\":\"c-0001\",\"status\":\"stopped\",\"sandbox\":{\"pid\":" + notASandbox + "}}");
        write("d-0001", "{\"id\":\"d-0001\",\"status\":\"paused\",\"sandbox\":{\"pid\":" + notASandbox + "}}");
        Files.writeString(root.resolve("a-0001_sandbox:a-0001.lock"), "");
        Files.writeString(root.resolve("runsc-a-0001.sock"), "");
        var states = new StateFiles(root);
        assertEquals(Map.of("a-0001", STOPPED, "b-0001", STOPPED, "c-0001", STOPPED, "d-0001", PAUSED), states.all());
        assertEquals(Optional.of(STOPPED), states.state("a-0001"));
        assertEquals(Optional.empty(), states.state("z-0001"));
    }

    @Test
    void aHalfWrittenFileIsUnreadableAndNoRootIsNoSandboxes() throws Exception {
        write("a-0001", "{\"id\":\"a-0001\",\"sta");
        var states = new StateFiles(root);
        assertThrows(StateFiles.Unreadable.class, () -> states.state("a-0001"));
        assertThrows(StateFiles.Unreadable.class, states::all);
        write("a-0001", "");
        assertThrows(StateFiles.Unreadable.class, () -> states.state("a-0001"));
        write("a-0001", "{\"id\":\"a-0001\",\"status\":\"somewhere\",\"sandbox\":{\"pid\":0}}");
        assertThrows(StateFiles.Unreadable.class, () -> states.state("a-0001"), "a status runsc does not write");
        assertEquals(Map.of(), new StateFiles(root.resolve("never-made")).all());
    }
}
