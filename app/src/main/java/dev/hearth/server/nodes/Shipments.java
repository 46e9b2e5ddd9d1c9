package dev.hearth.server.nodes;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import dev.hearth.server.http.Relay;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;

/**
 * This node's side of a move to another node: asks whether it has an image, and sends it a
 * computer's or a database's tar stream (see {@link Arrivals}), vouched for as this node with the
 * {@link NodeKey}.
 */
public final class Shipments {
    /** A node that refused or did not take a shipment; the computer stays where it was. */
    public static final class Refused extends Exception {
        public Refused(String message) {
            super(message);
        }
    }

    private final NodeKey key;
    private final String here;
    private final String scheme;
    private final Clock clock;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();

    /** {@code scheme}: how nodes reach each other's APIs, as this node's own API is served. */
    public Shipments(NodeKey key, String here, String scheme, Clock clock) {
        this.key = key;
        this.here = here;
        this.scheme = scheme;
        this.clock = clock;
    }

    /** Whether {@code node} has the image of this digest unpacked. */
    public boolean hasImage(Node node, String digest) throws Refused {
        var response = send(node, "GET", "/_nodes/images/" + digest, HttpRequest.BodyPublishers.noBody());
        return response == 204;
    }

    /** Sends computer {@code computerId}'s files ({@code tar}) to {@code node}, which records it as its own. */
    public void computer(Node node, String computerId, InputStream tar) throws Refused {
        String target = "/_nodes/computers/" + computerId + "?from=" + URLEncoder.encode(here, StandardCharsets.UTF_8);
        int status = send(node, "PUT", target, HttpRequest.BodyPublishers.ofInputStream(() -> tar));
        if (status != 204) {
            throw new Refused("node " + node.name() + " answered " + status);
        }
    }

    /** Sends database {@code databaseId}'s disks and checkpoints ({@code tar}) to {@code node}, which records it as its own. */
    public void database(Node node, String databaseId, InputStream tar) throws Refused {
        String target = "/_nodes/databases/" + databaseId + "?from=" + URLEncoder.encode(here, StandardCharsets.UTF_8);
        int status = send(node, "PUT", target, HttpRequest.BodyPublishers.ofInputStream(() -> tar));
        if (status != 204) {
            throw new Refused("node " + node.name() + " answered " + status);
        }
    }

    /** Checkpoint {@code checkpointId} of a computer on {@code node}, as tar; with its unpacked image if asked. */
    public InputStream checkpoint(Node node, String checkpointId, boolean withImage) throws Refused {
        String target = "/_nodes/checkpoints/" + checkpointId + (withImage ? "?image=true" : "");
        var request = HttpRequest.newBuilder(URI.create(scheme + "://" + node.address() + target)).GET()
                .header(Relay.HEADER, key.vouch("GET", target, Arrivals.caller(here), clock.instant())).build();
        try {
            var response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() != 200) {
                try (var body = response.body()) {
                    throw new Refused("node " + node.name() + " answered " + response.statusCode() + ": "
                            + message(new String(body.readAllBytes(), StandardCharsets.UTF_8)));
                }
            }
            return response.body();
        } catch (IOException e) {
            throw new Refused("node " + node.name() + " at " + node.address() + " broke off: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused("interrupted while asking node " + node.name());
        }
    }

    private int send(Node node, String method, String target, HttpRequest.BodyPublisher body) throws Refused {
        var request = HttpRequest.newBuilder(URI.create(scheme + "://" + node.address() + target)).method(method, body)
                .header(Relay.HEADER, key.vouch(method, target, Arrivals.caller(here), clock.instant())).build();
        try {
            var response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() >= 400 && response.statusCode() != 404) {
                throw new Refused("node " + node.name() + " refused: " + message(response.body()));
            }
            return response.statusCode();
        } catch (IOException e) {
            throw new Refused("node " + node.name() + " at " + node.address() + " broke off: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused("interrupted while sending to node " + node.name());
        }
    }

    private static String message(String body) {
        try {
            JsonNode json = Json.mapper().readTree(body);
            return json.path("error").path("message").asText(body);
        } catch (IOException e) {
            return body;
        }
    }
}
