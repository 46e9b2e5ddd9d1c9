package dev.hearth.computers;

import static dev.hearth.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.client.HearthClient;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Labels on computers (set on create and PATCH, lists filtered by them and by state), a lifetime that
 * deletes or puts to sleep at {@code expires_at} and holds across a restart of the server, and the
 * last hour of a computer's metrics.
 */
@HearthServerTest(computers = true)
class LabelsAndLifetimesTest {
    private static final String IMAGE = "hearth/busybox";

    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;

    @BeforeAll
    void workspace() {
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @Test
    void labelsAreSetOnCreateAndPatchAndListsFilterByThemAndByState() {
        var a = TestComputers.create(admin, ws, "lab-a", IMAGE, Map.of("labels", Map.of("team", "web", "tier", "1")));
        var b = TestComputers.create(admin, ws, "lab-b", IMAGE, Map.of("labels", Map.of("team", "web")));
        TestComputers.create(admin, ws, "lab-c", IMAGE, Map.of("labels", Map.of("team", "data")));
        assertEquals(Map.of("team", "web", "tier", "1"), labels(a));
        assertEquals(List.of("lab-a", "lab-b"), names("?label=team=web"));
        assertEquals(List.of("lab-a"), names("?label=team=web&label=tier=1"));
        assertEquals(List.of(), names("?label=team=nobody"));

        var patched = admin.patch("/computers/" + b.path("id").asText(), Map.of("labels",
                new HashMap<>(Map.of("tier", "2")))).path("computer");
        assertEquals(Map.of("team", "web", "tier", "2"), labels(patched), "a PATCH merges");
        var removal = new HashMap<String, Object>();
        removal.put("team", null);
        patched = admin.patch("/computers/" + b.path("id").asText(), Map.of("labels", removal)).path("computer");
        assertEquals(Map.of("tier", "2"), labels(patched), "null removes one");
        assertEquals(List.of("lab-a"), names("?label=team=web"));

        admin.post("/computers/" + b.path("id").asText() + "/sleep", Map.of());
        assertEquals(List.of("lab-b"), names("?state=sleeping&label=tier=2"));
        assertTrue(names("?state=ready").containsAll(List.of("lab-a", "lab-c")));
        // Search: name or image, any letter case; % and _ are letters like any other.
        assertEquals(List.of("lab-b"), names("?q=B-B"));
        assertEquals(List.of("lab-b"), names("?q=busy&state=sleeping"));
        assertTrue(names("?q=BusyBox").containsAll(List.of("lab-a", "lab-b", "lab-c")));
        assertEquals(List.of(), names("?q=_"));
        assertEquals(List.of(), names("?q=%25"));
        assertEquals(List.of(), names("?q=!"));
        assertEquals(400, assertThrows(ApiException.class, () -> admin.get("/workspaces/" + ws
                + "/computers?q=" + "x".repeat(201))).status());
        assertEquals(400, assertThrows(ApiException.class, () -> admin.get("/workspaces/" + ws
                + "/computers?label=team")).status());
        assertEquals(400, assertThrows(ApiException.class, () -> admin.get("/workspaces/" + ws
                + "/computers?state=dozing")).status());
        var bad = admin.send("POST", "/workspaces/" + ws + "/computers", Map.of("name", "lab-bad", "image", IMAGE,
                "labels", Map.of("no spaces", "x")), TestComputers.key());
        assertEquals(400, bad.status());
        assertTrue(bad.body().toString().contains("labels.no spaces"), bad.body().toString());
    }

    @Test
    void aLifetimeDeletesOrSleepsTheComputerWhenItEndsAcrossARestart() throws Exception {
        var deleting = TestComputers.create(admin, ws, "lease-delete", IMAGE,
                Map.of("expires_at", Instant.now().plusSeconds(4).toString()));
        var sleeping = TestComputers.create(admin, ws, "lease-sleep", IMAGE, Map.of());
        String at = Instant.now().plusSeconds(5).truncatedTo(ChronoUnit.MILLIS).toString();
        var leased = admin.patch("/computers/" + sleeping.path("id").asText(),
                Map.of("expires_at", at, "on_expire", "sleep")).path("computer");
        assertEquals(Instant.parse(at), Instant.parse(leased.path("expires_at").asText()));
        assertEquals("sleep", leased.path("on_expire").asText());
        assertEquals("delete", deleting.path("on_expire").asText());

        server.restart(); // the lease is in the store, not in memory
        var deleted = waitFor(deleting.path("id").asText(), c -> !c.path("deleted_at").isNull());
        assertNotNull(deleted, "deleted when its lifetime ended");
        var slept = waitFor(sleeping.path("id").asText(), c -> c.path("state").asText().equals("sleeping"));
        assertNotNull(slept, "asleep when its lifetime ended");
        assertTrue(slept.path("expires_at").isNull(), "a sleep ends the lease: " + slept);

        var kept = TestComputers.create(admin, ws, "lease-none", IMAGE, Map.of("expires_at",
                Instant.now().plusSeconds(3).toString()));
        var unset = new HashMap<String, Object>();
        unset.put("expires_at", null);
        assertTrue(admin.patch("/computers/" + kept.path("id").asText(), unset).path("computer").path("expires_at")
                .isNull());
        Thread.sleep(4000);
        assertEquals("ready", admin.get("/computers/" + kept.path("id").asText()).path("computer").path("state").asText());

        var past = assertThrows(ApiException.class, () -> admin.patch("/computers/" + kept.path("id").asText(),
                Map.of("expires_at", "2020-01-01T00:00:00Z")));
        assertEquals(400, past.status());
        var protect = assertThrows(ApiException.class, () -> admin.patch("/computers/" + kept.path("id").asText(),
                Map.of("protected", true, "expires_at", Instant.now().plusSeconds(60).toString())));
        assertTrue(protect.getMessage().contains("protected"), protect.getMessage());
    }

    @Test
    void theLastHourOfMetricsIsKeptInSamples() throws Exception {
        var computer = TestComputers.create(admin, ws, "history", IMAGE, Map.of());
        String path = "/computers/" + computer.path("id").asText() + "/metrics/history";
        JsonNode samples = eventually(Duration.ofSeconds(15), () -> admin.get(path).path("samples"),
                s -> !s.isEmpty());
        assertTrue(!samples.isEmpty(), "a sample within 15 s");
        var last = samples.get(samples.size() - 1);
        assertTrue(last.path("memory_bytes").asLong() > 0 && last.path("memory_limit_bytes").asLong() == 512L << 20,
                last.toString());
        assertTrue(last.path("disk_size_bytes").asLong() > 0, last.toString());
        // cpu_percent is the use between two samples: null in the first one.
        assertTrue(last.path("cpu_seconds").isNumber() && (last.path("cpu_percent").isNumber()
                || samples.size() == 1 && last.path("cpu_percent").isNull()), last.toString());
        assertEquals(0, admin.get(path + "?since=" + Instant.now().plusSeconds(60)).path("samples").size());
        assertEquals(0, admin.get(path + "?until=" + Instant.now().minusSeconds(3600)).path("samples").size());
        assertEquals(400, assertThrows(ApiException.class, () -> admin.get(path + "?since=yesterday")).status());
    }

    private JsonNode waitFor(String id, java.util.function.Predicate<JsonNode> done) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            var c = admin.get("/computers/" + id).path("computer");
            if (done.test(c)) {
                return c;
            }
            Thread.sleep(100);
        }
        return null;
    }

    private List<String> names(String query) {
        var names = new ArrayList<String>();
        admin.get("/workspaces/" + ws + "/computers" + query).path("computers")
                .forEach(c -> names.add(c.path("name").asText()));
        return names.stream().filter(n -> n.startsWith("lab-")).sorted().toList();
    }

    private static Map<String, String> labels(JsonNode computer) {
        var labels = new HashMap<String, String>();
        StreamSupport.stream(computer.path("labels").properties().spliterator(), false)
                .forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
        return labels;
    }
}
