package dev.hearth.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A host on the "outside" that a test makes for itself: a network namespace with a veth to this
 * host and an address in TEST-NET-2 (198.51.100.2; this host's end is 198.51.100.1), running
 * busybox httpd on 8080 whose {@code /cgi-bin/addr} answers the caller's address. Tests send traffic
 * only here and to loopback.
 */
public final class TestHost implements AutoCloseable {
    public static final String ADDRESS = "198.51.100.2";
    public static final String GATEWAY = "198.51.100.1";
    public static final int PORT = 8080;
    private static final String NETNS = "hearth-testhost";
    private static final String VETH = "htn0";

    private final Path dir;
    private final Process httpd;

    private TestHost(Path dir, Process httpd) {
        this.dir = dir;
        this.httpd = httpd;
    }

    public static TestHost start(Path dir) throws Exception {
        removeLeftovers();
        run("ip", "netns", "add", NETNS);
        run("ip", "link", "add", VETH, "type", "veth", "peer", "name", "htn1");
        run("ip", "link", "set", "htn1", "netns", NETNS);
        run("ip", "addr", "add", GATEWAY + "/24", "dev", VETH);
        run("ip", "link", "set", VETH, "up");
        run("ip", "-n", NETNS, "addr", "add", ADDRESS + "/24", "dev", "htn1");
        run("ip", "-n", NETNS, "link", "set", "htn1", "up");
        run("ip", "-n", NETNS, "link", "set", "lo", "up");
        run("ip", "-n", NETNS, "route", "add", "default", "via", GATEWAY);
        Path www = Files.createDirectories(dir.resolve("www/cgi-bin"));
        Files.writeString(dir.resolve("www/index.html"), "hello from the test host\n");
        Path addr = www.resolve("addr");
        Files.writeString(addr, "#!/bin/sh\nprintf 'Content-Type: text/plain\\r\\n\\r\\n'\necho \"$REMOTE_ADDR\"\n");
        Files.setPosixFilePermissions(addr, PosixFilePermissions.fromString("rwxr-xr-x"));
        var httpd = new ProcessBuilder("ip", "netns", "exec", NETNS, "busybox", "httpd", "-f",
                "-p", ADDRESS + ":" + PORT, "-h", dir.resolve("www").toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("httpd.log").toFile()).start();
        return new TestHost(dir, httpd);
    }

    private static void removeLeftovers() throws Exception {
        new ProcessBuilder("ip", "link", "del", VETH).start().waitFor();
        new ProcessBuilder("ip", "netns", "del", NETNS).start().waitFor();
    }

    private static void run(String... command) throws IOException, InterruptedException {
        var p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
    }

    @Override
    public void close() throws Exception {
        httpd.destroyForcibly().waitFor();
        removeLeftovers();
    }
}
