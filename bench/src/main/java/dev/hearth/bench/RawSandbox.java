package dev.hearth.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A sandbox driven with runsc and ip directly, as the measurements in design/measured did: the raw
 * primitive Hearth is compared with. It takes a Hearth computer's bundle (same image, same mounts)
 * and gives it its own network namespace, /data, overlay and id.
 */
final class RawSandbox {
    private final Path root;
    private final Path dir;
    private final Path bundle;
    private final String id;
    private final String ns;
    private final String hostVeth;
    private final String peerVeth;
    private List<String> runscFlags = List.of();
    final String host;
    final String guest;

    private RawSandbox(Path root, Path dir, String id, int index) {
        this.root = root;
        this.dir = dir;
        this.bundle = dir.resolve("bundle");
        this.id = id;
        this.ns = "hbench-" + index;
        this.hostVeth = "hbv" + index;
        this.peerVeth = "hbp" + index;
        int block = 16_000 - index;
        this.host = "169.254." + ((block * 4 + 1) >> 8) + "." + ((block * 4 + 1) & 255);
        this.guest = "169.254." + ((block * 4 + 2) >> 8) + "." + ((block * 4 + 2) & 255);
    }

    /** Lays out dirs and a bundle from {@code template} (a computer's config.json); nothing runs yet. */
    static RawSandbox prepare(Path workDir, Path template, int index) throws Exception {
        return prepare(workDir, template, index, spec -> { });
    }

    /** As {@link #prepare(Path, Path, int)}, with the spec edited by {@code edit} first. */
    static RawSandbox prepare(Path workDir, Path template, int index, java.util.function.Consumer<ObjectNode> edit)
            throws Exception {
        String id = String.format("rawbench%04d", index);
        Path dir = Files.createDirectories(workDir.resolve("raw").resolve(id));
        var sandbox = new RawSandbox(workDir.resolve("runsc"), dir, id, index);
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.createDirectories(dir.resolve("overlay"));
        var spec = (ObjectNode) Json.mapper().readTree(template.toFile());
        for (var n : spec.path("linux").path("namespaces")) {
            if (n.path("type").asText().equals("network")) {
                ((ObjectNode) n).put("path", "/var/run/netns/" + sandbox.ns);
            }
        }
        for (var m : spec.path("mounts")) {
            if (m.path("destination").asText().equals("/data")) {
                ((ObjectNode) m).put("source", data.toString());
            }
        }
        ((ObjectNode) spec.path("linux")).put("cgroupsPath", "/hearth-bench/" + id);
        edit.accept(spec);
        Files.createDirectories(sandbox.bundle);
        Files.writeString(sandbox.bundle.resolve("config.json"), spec.toString());
        return sandbox;
    }

    /** runsc's global flags for every start of this sandbox (such as {@code --host-uds=create}). */
    RawSandbox withRunscFlags(List<String> flags) {
        this.runscFlags = List.copyOf(flags);
        return this;
    }

    Path dir() {
        return dir;
    }

    Path data() {
        return dir.resolve("data");
    }

    /** The namespace, the veth pair and the addresses, one ip call each, as a script would. */
    void network() throws Exception {
        run("ip", "netns", "add", ns);
        run("ip", "link", "add", hostVeth, "type", "veth", "peer", "name", peerVeth);
        run("ip", "link", "set", peerVeth, "netns", ns);
        run("ip", "-n", ns, "link", "set", peerVeth, "name", "eth0");
        run("ip", "addr", "add", host + "/30", "dev", hostVeth);
        run("ip", "link", "set", hostVeth, "up");
        run("ip", "-n", ns, "link", "set", "lo", "up");
        readdress();
    }

    /** runsc takes eth0's address away on every start and restore: give it back first. */
    void readdress() throws Exception {
        run("ip", "-n", ns, "addr", "replace", guest + "/30", "dev", "eth0");
        run("ip", "-n", ns, "link", "set", "eth0", "up");
        run("ip", "-n", ns, "route", "replace", "default", "via", host);
    }

    void start() throws Exception {
        run(boot("run", List.of()));
    }

    void restore(Path image) throws Exception {
        readdress();
        run(boot("restore", List.of("--image-path", image.toString())));
    }

    private String[] boot(String action, List<String> flags) {
        var command = new ArrayList<>(List.of("unshare", "-m", "sh", "-c",
                "mount -t tmpfs -o size=4k bench /proc/sys/net && exec \"$@\"", "runsc", "runsc", "--root", root.toString()));
        command.addAll(runscFlags);
        command.addAll(List.of("--network=sandbox", "--net-disconnect-ok", "--overlay2=root:dir=" + dir.resolve("overlay"), action,
                "--detach", "--bundle", bundle.toString()));
        command.addAll(flags);
        command.add(id);
        return command.toArray(String[]::new);
    }

    void checkpoint(Path image, boolean leaveRunning) throws Exception {
        Files.createDirectories(image);
        if (leaveRunning) {
            run("runsc", "--root", root.toString(), "checkpoint", "--image-path", image.toString(), "--compression=none",
                    "--leave-running", id);
        } else {
            run("runsc", "--root", root.toString(), "checkpoint", "--image-path", image.toString(), "--compression=none", id);
        }
    }

    void pause() throws Exception {
        run("runsc", "--root", root.toString(), "pause", id);
    }

    void resume() throws Exception {
        run("runsc", "--root", root.toString(), "resume", id);
    }

    String exec(String... command) throws Exception {
        var full = new ArrayList<>(List.of("runsc", "--root", root.toString(), "exec", id));
        full.addAll(List.of(command));
        var p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("runsc exec " + String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    void delete() throws Exception {
        new ProcessBuilder("runsc", "--root", root.toString(), "delete", "--force", id).start().waitFor();
    }

    void removeNetwork() throws Exception {
        new ProcessBuilder("ip", "link", "del", hostVeth).start().waitFor();
        new ProcessBuilder("ip", "netns", "del", ns).start().waitFor();
    }

    /** Runs a command to its end; its output goes to a file, since a detached runsc keeps a pipe open. */
    static void run(String... command) throws Exception {
        Path log = Files.createTempFile("hearth-bench", ".log");
        try {
            var p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + Files.readString(log));
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
