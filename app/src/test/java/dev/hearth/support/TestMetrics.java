package dev.hearth.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Pattern;

/** The operator listener as the tests read it: a port to give {@code --metrics-listen}, its text, a histogram's count. */
public final class TestMetrics {
    private TestMetrics() {
    }

    public static int freePort() throws Exception {
        try (var free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    /** {@code GET /metrics} on the loopback port. */
    public static String scrape(int port) throws Exception {
        try (var client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    /** How many observations the histogram {@code name} holds; it must be scraped. */
    public static long count(int port, String name) throws Exception {
        String text = scrape(port);
        var m = Pattern.compile("(?m)^" + name + "_count (\\S+)$").matcher(text);
        assertTrue(m.find(), name + " is scraped: " + text);
        return (long) Double.parseDouble(m.group(1));
    }
}
