package dev.hearth.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.Json;
import dev.hearth.client.HearthClient;
import dev.hearth.server.Config;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestKinds;
import dev.hearth.support.TestServer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** GET /metrics on the operator listener, scraped as Prometheus would, after real API traffic. */
@HearthServerTest(config = "withMetrics")
class MetricsTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private final int port;

    MetricsTest() throws Exception {
        try (var free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
    }

    UnaryOperator<Config> withMetrics() {
        return c -> c.withMetricsListen(Optional.of("127.0.0.1:" + port)).withOperations(Duration.ofSeconds(2), TestKinds.all());
    }

    private HttpResponse<String> get(String url) throws Exception {
        try (var http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static long count(String scrape, String labels) {
        var m = Pattern.compile("(?m)^hearth_http_request_duration_seconds_count\\{" + Pattern.quote(labels) + "} (\\S+)$")
                .matcher(scrape);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
    }

    @Test
    void requestsAreCountedByRouteTemplateWithoutWorkspaceData() throws Exception {
        long before = count(get("http://127.0.0.1:" + port + "/metrics").body(), "method=\"GET\",route=\"/v1/me\",status=\"200\"");
        for (int i = 0; i < 3; i++) {
            admin.get("/me");
        }
        var ws = TestServer.workspace(admin);
        String name = ws.path("name").asText();
        String id = ws.path("id").asText();
        admin.get("/workspaces/" + id);
        assertEquals(404, admin.send("GET", "/no/such/" + name, null, Map.of()).status());

        var scrape = get("http://127.0.0.1:" + port + "/metrics");
        assertEquals(200, scrape.statusCode());
        assertTrue(scrape.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), scrape.headers().toString());
        String text = scrape.body();
        assertEquals(before + 3, count(text, "method=\"GET\",route=\"/v1/me\",status=\"200\""), text);
        assertTrue(count(text, "method=\"GET\",route=\"/v1/workspaces/{ws}\",status=\"200\"") >= 1, text);
        assertTrue(count(text, "method=\"GET\",route=\"unmatched\",status=\"404\"") >= 1, text);
        assertTrue(text.contains("hearth_http_request_duration_seconds_bucket{method=\"GET\",route=\"/v1/me\",status=\"200\",le="),
                "latency histogram buckets");
        assertFalse(text.contains(name) || text.contains(id), "no workspace name or id in any label");
    }

    @Test
    void storeJvmAndOperationsAreThere() throws Exception {
        String ws = TestServer.workspace(admin).path("id").asText();
        var operations = server.server().operations();
        for (String input : new String[] {"{\"millis\": 50}", "{\"millis\": 50, \"fail\": true}"}) {
            String id = operations.begin("test.sleep", ws, "thing", Json.mapper().readTree(input)).id();
            admin.get("/operations/" + id + "?wait=30");
        }
        String text = get("http://127.0.0.1:" + port + "/metrics").body();
        assertTrue(Pattern.compile("(?m)^hearth_operations\\{kind=\"test.sleep\",state=\"succeeded\"} [1-9]").matcher(text).find(), text);
        assertTrue(Pattern.compile("(?m)^hearth_operations\\{kind=\"test.sleep\",state=\"failed\"} [1-9]").matcher(text).find(), text);
        assertTrue(text.contains("hearth_computers{state=\"ready\"}"), "every state has its series: " + text);
        assertTrue(text.contains("hearth_databases{state=\"sleeping\"}"), text);
        assertTrue(Pattern.compile("(?m)^hearth_store_connections\\{state=\"idle\"} \\d").matcher(text).find(), text);
        assertTrue(text.contains("# TYPE hearth_virtual_thread_pinned_total counter"), text);
        assertTrue(text.contains("jvm_memory_used_bytes{area=\"heap\"}"), "JVM metrics");
    }

    @Test
    void onlyMetricsIsServedThereAndTheApiDoesNotServeIt() throws Exception {
        assertEquals(404, get("http://127.0.0.1:" + port + "/v1/me").statusCode());
        assertEquals(404, admin.send("GET", "/metrics", null, Map.of()).status());
    }
}
