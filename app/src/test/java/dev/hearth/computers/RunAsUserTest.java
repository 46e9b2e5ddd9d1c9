package dev.hearth.computers;

import static dev.hearth.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.io.ByteArrayInputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A computer used as a person would: commands and processes run as a user of its image (uid, gid,
 * groups, HOME, USER, the home as cwd), sudo to root, files owned by whom they are for, processes on
 * a terminal that is resized and read again from now, a directory watched, and a server bound to
 * 127.0.0.1 inside reached through the router. On E2B's base image (Debian with the user "user").
 */
@HearthServerTest(computers = true)
class RunAsUserTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String id;
    private JsonNode computer;

    @BeforeAll
    void computer() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        String image = TestImages.e2bBase();
        TestComputers.pull(admin, ws, image);
        computer = TestComputers.create(admin, ws, "person", image, Map.of("ports", List.of(Map.of("target", 8000))));
        id = computer.path("id").asText();
    }

    @Test
    void execAndProcessesRunAsTheUserTheyName() throws Exception {
        var as = exec(Map.of("command", List.of("sh", "-c", "id; echo $HOME $USER; pwd"), "user", "user"));
        assertEquals("uid=1000(user) gid=1000(user) groups=1000(user)\n/home/user user\n/home/user\n",
                as.path("stdout").asText());
        var there = exec(Map.of("command", List.of("pwd"), "user", "user", "cwd", "/tmp"));
        assertEquals("/tmp\n", there.path("stdout").asText());
        assertEquals("root\n", exec(Map.of("command", List.of("whoami"))).path("stdout").asText(), "root by default");
        var sudo = exec(Map.of("command", List.of("sh", "-c", "sudo whoami; sudo -u user id -u; cat /root/.bashrc >/dev/null"),
                "user", "user"));
        assertEquals("root\n1000\n", sudo.path("stdout").asText());
        assertTrue(sudo.path("stderr").asText().contains("Permission denied"), sudo.toString());
        // A user the image does not have is as a command it does not have: 127, the reason on stderr.
        var unknown = exec(Map.of("command", List.of("true"), "user", "nobody-here"));
        assertEquals(127, unknown.path("exit_code").asInt(), unknown.toString());
        assertTrue(unknown.path("stderr").asText().contains("nobody-here"), unknown.toString());
        var refused = assertThrows(ApiException.class, () -> admin.post("/computers/" + id + "/processes",
                Map.of("command", List.of("true"), "user", "nobody-here")));
        assertEquals(400, refused.status());

        var started = admin.post("/computers/" + id + "/processes", Map.of("command",
                List.of("sh", "-c", "id -un > /tmp/who; sleep 30"), "user", "user")).path("process");
        assertEquals("user\n", eventually(Duration.ofSeconds(5), () -> read("/tmp/who"), who -> !who.isEmpty()));
        admin.post("/computers/" + id + "/processes/" + started.path("pid").asInt() + "/signal", Map.of("signal", "KILL"));
    }

    @Test
    void aProcessOnATerminalIsResizedAndReadAgainFromNow() throws Exception {
        var started = admin.post("/computers/" + id + "/processes", Map.of("command", List.of("bash", "--norc", "-i"),
                "user", "user", "pty", Map.of("cols", 100, "rows", 30))).path("process");
        assertTrue(started.path("pty").asBoolean(), started.toString());
        String pid = started.path("pid").asText();
        type(pid, "stty size\n");
        assertTrue(waitOutput(pid, "", "30 100"), "the size it was started with");
        admin.post("/computers/" + id + "/processes/" + pid + "/resize", Map.of("cols", 120, "rows", 40));
        type(pid, "stty size; echo as-$(whoami)\n");
        assertTrue(waitOutput(pid, "", "40 120"), "resized");
        assertTrue(waitOutput(pid, "", "as-user"));
        // Reattached from now: none of what it wrote before.
        var later = new CopyOnWriteArrayList<String>();
        var follower = Thread.ofVirtual().start(() -> {
            try {
                admin.streamLines("GET", "/computers/" + id + "/processes/" + pid + "/output?follow=true&from=now", null,
                        line -> later.add(line.path("stdout").asText()));
            } catch (RuntimeException e) {
                // ended with the process
            }
        });
        Thread.sleep(500);
        type(pid, "echo again-$((40+2)); exit\n");
        follower.join(10_000);
        String after = String.join("", later);
        assertTrue(after.contains("again-42"), after);
        assertTrue(!after.contains("30 100"), "nothing from before: " + after);
        var notPty = admin.post("/computers/" + id + "/processes", Map.of("command", List.of("sleep", "5"))).path("process");
        var refused = assertThrows(ApiException.class, () -> admin.post("/computers/" + id + "/processes/"
                + notPty.path("pid").asInt() + "/resize", Map.of("cols", 80, "rows", 24)));
        assertEquals(409, refused.status());
    }

    @Test
    void filesAreOwnedByWhomTheyAreForAndSayWhoOwnsThem() throws Exception {
        var written = admin.upload("/computers/" + id + "/files?owner=user&path=" + enc("/home/user/new/dir/f.txt"),
                "application/octet-stream", () -> new ByteArrayInputStream("mine".getBytes())).path("file");
        assertEquals("user", written.path("owner").asText());
        assertEquals(1000, written.path("uid").asInt());
        assertEquals("-rw-r--r--", written.path("permissions").asText());
        assertEquals("user user\nuser\n", exec(Map.of("command", List.of("sh", "-c",
                "stat -c '%U %G' /home/user/new/dir/f.txt; stat -c %U /home/user/new"))).path("stdout").asText(),
                "made directories are the user's too");
        var made = admin.post("/computers/" + id + "/files/mkdir", Map.of("path", "/home/user/made", "owner", "user"))
                .path("file");
        assertEquals("user", made.path("owner").asText());
        assertEquals("drwxr-xr-x", made.path("permissions").asText());
        exec(Map.of("command", List.of("ln", "-s", "new/dir/f.txt", "/home/user/link")));
        var link = admin.get("/computers/" + id + "/files/info?path=" + enc("/home/user/link")).path("file");
        assertEquals("new/dir/f.txt", link.path("symlink_target").asText(), link.toString());
        assertEquals("root", link.path("owner").asText());
        var nobody = assertThrows(ApiException.class, () -> admin.upload("/computers/" + id + "/files?owner=nobody-here&path="
                + enc("/tmp/x"), "application/octet-stream", () -> new ByteArrayInputStream(new byte[1])));
        assertEquals(400, nobody.status());
    }

    @Test
    void aWatchSaysWhatHappensInADirectory() throws Exception {
        exec(Map.of("command", List.of("mkdir", "-p", "/srv/watched")));
        var events = new CopyOnWriteArrayList<String>();
        var watcher = Thread.ofVirtual().start(() -> {
            try {
                admin.streamLines("GET", "/computers/" + id + "/files/watch?recursive=true&path=" + enc("/srv/watched"),
                        null, line -> {
                            if (line.has("type")) {
                                events.add(line.path("type").asText() + " " + line.path("name").asText());
                            }
                            if (events.contains("remove sub/b")) {
                                throw new IllegalStateException("seen");
                            }
                        });
            } catch (RuntimeException e) {
                // hung up once seen
            }
        });
        Thread.sleep(500);
        // No pause between a directory's making and its contents': what the new directory holds
        // before its watch is added is reported all the same, each create once (a write may show
        // twice: one seen by the scan of the new directory can still be queued).
        exec(Map.of("command", List.of("sh", "-c", "echo a > /srv/watched/a; mkdir -p /srv/watched/deep/er; "
                + "echo c > /srv/watched/deep/er/c; mkdir /srv/watched/sub; echo b > /srv/watched/sub/b; "
                + "rm /srv/watched/sub/b")));
        watcher.join(10_000);
        for (String e : List.of("create a", "write a", "create deep", "create deep/er", "create deep/er/c",
                "write deep/er/c", "create sub", "create sub/b", "remove sub/b")) {
            assertTrue(events.contains(e), e + " in " + events);
            assertTrue(!e.startsWith("create") || events.stream().filter(e::equals).count() == 1, e + " once in " + events);
        }
        var missing = assertThrows(ApiException.class, () -> admin.streamLines("GET", "/computers/" + id
                + "/files/watch?path=" + enc("/no/such/dir"), null, line -> { }));
        assertEquals(404, missing.status());
    }

    @Test
    void aServerBoundTo127001InsideIsReachedThroughTheRouter() throws Exception {
        exec(Map.of("command", List.of("sh", "-c", "mkdir -p /tmp/www && echo inside > /tmp/www/index.html && "
                + "cd /tmp/www && (python3 -m http.server 8000 --bind 127.0.0.1 >/dev/null 2>&1 &)")));
        String url = computer.path("ports").get(0).path("url").asText();
        String body = "";
        for (int i = 0; i < 100 && !body.equals("inside\n"); i++) {
            // curl, as browsers do, resolves *.localhost to the loopback address; the JDK does not.
            var curl = new ProcessBuilder("curl", "-s", "-f", url + "/").redirectErrorStream(true).start();
            body = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            body = curl.waitFor() == 0 ? body : "";
            Thread.sleep(body.isEmpty() ? 100 : 0);
        }
        assertEquals("inside\n", body);
    }

    private JsonNode exec(Map<String, Object> request) {
        return admin.post("/computers/" + id + "/exec", request);
    }

    private String read(String path) throws Exception {
        try (var in = admin.download("/computers/" + id + "/files?path=" + enc(path))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (ApiException e) {
            return "";
        }
    }

    private void type(String pid, String text) {
        var fed = admin.send("POST", "/computers/" + id + "/processes/" + pid + "/stdin", text, Map.of());
        assertEquals(200, fed.status(), fed.body()::toString);
    }

    private boolean waitOutput(String pid, String query, String wanted) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            var all = new ArrayList<String>();
            admin.streamLines("GET", "/computers/" + id + "/processes/" + pid + "/output" + query, null,
                    line -> all.add(line.path("stdout").asText()));
            if (String.join("", all).contains(wanted)) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    private static String enc(String path) {
        return URLEncoder.encode(path, StandardCharsets.UTF_8);
    }
}
