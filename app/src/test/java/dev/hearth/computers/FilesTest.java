package dev.hearth.computers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files in computers, through the agent: bytes unchanged both ways, directories, archives, bad input. */
@HearthServerTest(computers = true)
class FilesTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;
    private String debian;

    @BeforeAll
    void debianComputer() throws Exception {
        ws = TestServer.workspace(admin).path("id").asText();
        String image = TestImages.debian();
        TestComputers.pull(admin, ws, image);
        debian = TestComputers.create(admin, ws, "debian", image, Map.of()).path("id").asText();
    }

    @Test
    void aBinaryFileRoundTripsByteForByteBothWays() throws Exception {
        byte[] bytes = random(5 << 20);
        var written = upload(debian, "/data/in/blob.bin", bytes).path("file");
        assertEquals("file", written.path("type").asText());
        assertEquals(bytes.length, written.path("size").asLong());
        assertEquals("0644", written.path("mode").asText());
        assertEquals(sha256(bytes), TestComputers.run(admin, debian, "sha256sum /data/in/blob.bin | cut -d' ' -f1"),
                "the computer holds the very bytes sent");
        assertArrayEquals(bytes, download(debian, "/data/in/blob.bin"));
        // And one the computer made, out.
        TestComputers.run(admin, debian, "head -c 3000000 /dev/urandom > /tmp/made.bin");
        String inside = TestComputers.run(admin, debian, "sha256sum /tmp/made.bin | cut -d' ' -f1");
        assertEquals(inside, sha256(download(debian, "/tmp/made.bin")));
    }

    @Test
    void directoriesAreListedMadeMovedAndDeleted() throws Exception {
        upload(debian, "/srv/site/index.html", "hello".getBytes());
        assertEquals("0700", admin.send("PUT", files(debian, "/srv/site/run.sh") + "&mode=700", "#!/bin/sh", Map.of())
                .body().path("file").path("mode").asText());
        var listed = admin.get(route(debian, "/list", "/srv/site")).path("files");
        assertEquals(List.of("index.html", "run.sh"), names(listed));
        assertEquals("dir", admin.get(route(debian, "/info", "/srv")).path("file").path("type").asText());
        assertEquals("dir", admin.post("/computers/" + debian + "/files/mkdir", Map.of("path", "/srv/empty/deeper"))
                .path("file").path("type").asText());
        // Within a file system, and across one (the root file system to /data), as mv does.
        admin.post("/computers/" + debian + "/files/move", Map.of("from", "/srv/site", "to", "/srv/moved"));
        var across = admin.post("/computers/" + debian + "/files/move", Map.of("from", "/srv/moved", "to", "/data/site"))
                .path("file");
        assertEquals("/data/site", across.path("path").asText());
        assertEquals("hello", TestComputers.run(admin, debian, "cat /data/site/index.html; test ! -e /srv/moved"));
        assertError(409, "conflict", () -> admin.delete(files(debian, "/data/site")));
        assertEquals("dir", admin.delete(files(debian, "/data/site") + "&recursive=true").path("file").path("type").asText());
        assertError(404, "not_found", () -> admin.get(route(debian, "/info", "/data/site")));
    }

    @Test
    void aDirectoryGoesOutAndInAsATar(@TempDir Path tmp) throws Exception {
        byte[] bytes = random(5 << 20);
        upload(debian, "/data/tree/a/blob.bin", bytes);
        upload(debian, "/data/tree/b/note.txt", "note".getBytes());
        byte[] tar;
        try (var in = admin.download(route(debian, "/archive", "/data/tree"))) {
            tar = in.readAllBytes();
        }
        Path unpacked = Files.createDirectories(tmp.resolve("out"));
        Path tarFile = Files.write(tmp.resolve("tree.tar"), tar);
        assertEquals(0, new ProcessBuilder("tar", "-C", unpacked.toString(), "-xf", tarFile.toString())
                .inheritIO().start().waitFor());
        assertArrayEquals(bytes, Files.readAllBytes(unpacked.resolve("a/blob.bin")));
        var into = admin.upload(route(debian, "/archive", "/opt/copy"), "application/x-tar",
                () -> new ByteArrayInputStream(tar)).path("file");
        assertEquals("dir", into.path("type").asText());
        assertEquals(sha256(bytes) + " note", TestComputers.run(admin, debian,
                "echo $(sha256sum /opt/copy/a/blob.bin | cut -d' ' -f1) $(cat /opt/copy/b/note.txt)"));
    }

    @Test
    void badPathsAreRefusedBeforeAnythingHappens() {
        for (String path : List.of("relative/x", "/tmp/../etc/passwd", "/tmp/./x", "/tmp/a\0b", "")) {
            var r = admin.send("GET", files(debian, path), null, Map.of());
            assertEquals(400, r.status(), path + ": " + r.body());
            assertEquals("invalid_request", r.body().path("error").path("code").asText());
        }
        assertError(400, "invalid_request", () -> admin.get("/computers/" + debian + "/files"));
        assertError(400, "invalid_request", () -> admin.get(files(debian, "/etc")));
        assertError(404, "not_found", () -> admin.get(files(debian, "/no/such/file")));
        assertError(400, "invalid_request", () -> upload(debian, "/etc", "x".getBytes()));
        assertEquals(400, admin.send("PUT", files(debian, "/tmp/m") + "&mode=999", "x", Map.of()).status());
        assertError(400, "invalid_request", () -> admin.post("/computers/" + debian + "/files/move",
                Map.of("from", "/etc/hostname", "to", "../x")));
    }

    @Test
    void anUploadRefusedBeforeItsBodyArrivedClosesItsConnectionAndSaysSo() throws Exception {
        // Most of the body is never sent: the server cannot read to its end, so the connection cannot
        // carry another request, and a client that pooled it would lose its next one.
        String token = KeyFileTokens.read(server.dataDir.resolve("admin-key.json")).token(admin).orElseThrow();
        var url = URI.create(admin.baseUrl() + files(debian, "/tmp/m") + "&mode=999");
        try (var socket = new Socket(url.getHost(), url.getPort())) {
            var out = socket.getOutputStream();
            out.write(("PUT " + url.getRawPath() + "?" + url.getRawQuery() + " HTTP/1.1\r\nHost: x\r\n"
                    + "Authorization: Bearer " + token + "\r\nContent-Length: 1000000\r\n\r\n0123456789")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.setSoTimeout(10_000);
            var in = socket.getInputStream();
            var head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head.append((char) b);
            }
            assertTrue(head.toString().startsWith("HTTP/1.1 400 "), head.toString());
            assertTrue(head.toString().toLowerCase(Locale.ROOT).contains("\r\nconnection: close\r\n"), head.toString());
        }
    }

    @Test
    void aFileOverTheSpaceLeftIsRefusedAndLeavesNothing() {
        String small = TestComputers.create(admin, ws, "small", "hearth/busybox",
                Map.of("resources", Map.of("disk_mb", 256))).path("id").asText();
        var r = assertThrows(ApiException.class, () -> admin.upload(files(small, "/data/big.bin"),
                "application/octet-stream", () -> new Zeros(400L << 20)));
        assertEquals(507, r.status(), r.getMessage());
        assertEquals("", TestComputers.run(admin, small, "ls -A /data"), "no half-written file, no temporary one");
        upload(small, "/data/fits.bin", random(1 << 20));
        admin.delete("/computers/" + small);
    }

    @Test
    void anImageWithNoShellStillHasFilesAndExec(@TempDir Path tmp) throws Exception {
        String bare = TestImages.only(tmp, "#include <unistd.h>\nint main(void) { for (;;) pause(); }\n");
        TestComputers.pull(admin, ws, bare);
        String id = TestComputers.create(admin, ws, "bare", bare, Map.of()).path("id").asText();
        upload(id, "/data/x.txt", "no shell here".getBytes());
        assertEquals("no shell here", new String(download(id, "/data/x.txt")));
        assertEquals(List.of("only"), names(admin.get(route(id, "/list", "/")).path("files")).stream()
                .filter(n -> n.equals("only")).toList());
        var r = admin.post("/computers/" + id + "/exec", Map.of("command", List.of("/only-missing")));
        assertEquals(127, r.path("exit_code").asInt(), r::toString);
        admin.delete("/computers/" + id);
    }

    @Test
    void filesWakeASleepingComputer() {
        String id = TestComputers.create(admin, ws, "sleepy", "hearth/busybox", Map.of()).path("id").asText();
        upload(id, "/tmp/kept.txt", "in memory".getBytes());
        admin.post("/computers/" + id + "/sleep", Map.of());
        assertEquals("sleeping", admin.get("/computers/" + id).path("computer").path("state").asText());
        assertEquals("in memory", new String(download(id, "/tmp/kept.txt")));
        assertEquals("ready", admin.get("/computers/" + id).path("computer").path("state").asText());
        admin.delete("/computers/" + id);
    }

    private JsonNode upload(String computer, String path, byte[] bytes) {
        return admin.upload(files(computer, path), "application/octet-stream", () -> new ByteArrayInputStream(bytes));
    }

    private byte[] download(String computer, String path) {
        try (var in = admin.download(files(computer, path))) {
            return in.readAllBytes();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String files(String computer, String path) {
        return route(computer, "", path);
    }

    private static String route(String computer, String suffix, String path) {
        return "/computers/" + computer + "/files" + suffix + "?path=" + URLEncoder.encode(path, StandardCharsets.UTF_8);
    }

    private static List<String> names(JsonNode files) {
        return java.util.stream.StreamSupport.stream(files.spliterator(), false).map(f -> f.path("name").asText()).toList();
    }

    private static void assertError(int status, String code, org.junit.jupiter.api.function.Executable call) {
        var e = assertThrows(ApiException.class, call);
        assertEquals(status, e.status(), e.getMessage());
        assertEquals(code, e.code(), e.getMessage());
    }

    private static byte[] random(int size) {
        byte[] bytes = new byte[size];
        new Random(size).nextBytes(bytes);
        return bytes;
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    /** Zero bytes, as many as asked, without holding them. */
    private static final class Zeros extends InputStream {
        private long left;

        Zeros(long size) {
            this.left = size;
        }

        @Override
        public int read() {
            return left-- > 0 ? 0 : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (left <= 0) {
                return -1;
            }
            int n = (int) Math.min(len, left);
            java.util.Arrays.fill(b, off, off + n, (byte) 0);
            left -= n;
            return n;
        }
    }
}
