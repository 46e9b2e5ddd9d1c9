package dev.hearth.support;

import dev.hearth.fs.Disk;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/** Debian's docker-registry on a free 127.0.0.1 port, storage in a temp directory, stopped on close. */
public final class Registry implements AutoCloseable {
    private final Process process;
    private final Path dir;
    public final String address;

    private Registry(Process process, Path dir, String address) {
        this.process = process;
        this.dir = dir;
        this.address = address;
    }

    public static Registry start() throws Exception {
        Path dir = Files.createTempDirectory("hearth-registry");
        int port;
        try (var s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Files.writeString(dir.resolve("config.yml"), """
                version: 0.1
                log:
                  level: warn
                storage:
                  filesystem:
                    rootdirectory: %s
                http:
                  addr: 127.0.0.1:%d
                """.formatted(dir.resolve("data"), port));
        var process = new ProcessBuilder("docker-registry", "serve", dir.resolve("config.yml").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("registry.log").toFile()).start();
        var registry = new Registry(process, dir, "127.0.0.1:" + port);
        registry.awaitReady();
        return registry;
    }

    private void awaitReady() throws Exception {
        for (int i = 0; i < 200; i++) {
            try {
                var c = (HttpURLConnection) URI.create("http://" + address + "/v2/").toURL().openConnection();
                if (c.getResponseCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("docker-registry did not start: " + Files.readString(dir.resolve("registry.log")));
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        process.waitFor();
        Disk.deleteTree(dir);
    }
}
