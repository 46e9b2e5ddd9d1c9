package dev.hearth.api;

import static dev.hearth.support.Envelope.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.client.HearthClient.Response;
import dev.hearth.client.TokenSource;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Every failure answers the one envelope, with the request id, and never a 500 for bad input. */
@HearthServerTest
class ErrorEnvelopeTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;

    private Response post(String path, String body, Map<String, String> headers) {
        return admin.send("POST", path, body, headers);
    }

    private static Map<String, String> key() {
        return Map.of("Idempotency-Key", UUID.randomUUID().toString());
    }

    @Test
    void unknownRoutesAndMethods() {
        assertError(admin.send("GET", "/nope", null, Map.of()), 404, "not_found");
        assertError(admin.send("GET", "/workspaces/abc/nope", null, Map.of()), 404, "not_found");
        var wrongMethod = admin.send("PUT", "/workspaces", "{}", Map.of());
        assertError(wrongMethod, 405, "method_not_allowed");
        assertEquals("[\"GET\",\"POST\"]", wrongMethod.body().path("error").path("details").path("allowed").toString());
        var outsideV1 = new HearthClient(server.baseUrl().replace("/v1", ""), TokenSource.none());
        assertError(outsideV1.send("GET", "/other", null, Map.of()), 404, "not_found");
    }

    @Test
    void malformedBodies() {
        assertError(post("/workspaces", "{\"name\": ", key()), 400, "invalid_request");
        assertError(post("/workspaces", "[1, 2]", key()), 400, "invalid_request");
        assertError(post("/workspaces", "null", key()), 400, "invalid_request");
        assertError(post("/workspaces", "", key()), 400, "invalid_request");
        assertError(post("/workspaces", "{\"name\": \"a\"} trailing", key()), 400, "invalid_request");
        assertError(post("/workspaces", "{\"name\": \"a\", \"name\": \"b\"}", key()), 400, "invalid_request");
    }

    @Test
    void wrongTypesAndUnknownFieldsNameTheField() {
        var wrongType = post("/workspaces", "{\"name\": 5}", key());
        assertError(wrongType, 400, "invalid_request");
        assertEquals("must be a string", wrongType.body().path("error").path("details").path("fields").path("name").asText());
        var unknown = post("/workspaces", "{\"name\": \"ok-name\", \"colour\": \"red\"}", key());
        assertError(unknown, 400, "invalid_request");
        assertEquals("unknown field", unknown.body().path("error").path("details").path("fields").path("colour").asText());
        var badName = post("/workspaces", "{\"name\": \"Not_A_Label\"}", key());
        assertError(badName, 400, "invalid_request");
        assertTrue(badName.body().path("error").path("details").path("fields").has("name"));
        assertError(post("/workspaces", "{\"name\": \"" + "a".repeat(64) + "\"}", key()), 400, "invalid_request");
        assertError(post("/workspaces", "{}", key()), 400, "invalid_request");
    }

    @Test
    void bodiesOverTheLimitAreRefused() {
        String big = "{\"name\": \"" + "a".repeat(1 << 20) + "\"}";
        assertError(post("/workspaces", big, key()), 413, "payload_too_large");
    }

    @Test
    void bodiesMustBeJson() {
        var headers = new HashMap<>(key());
        headers.put("Content-Type", "text/plain");
        assertError(post("/workspaces", "{\"name\": \"plain\"}", headers), 415, "unsupported_media_type");
    }

    @Test
    void badCursorsAndLimits() {
        var cursor = admin.send("GET", "/workspaces?cursor=not-a-cursor", null, Map.of());
        assertError(cursor, 400, "invalid_request");
        assertTrue(cursor.body().path("error").path("details").path("fields").has("cursor"));
        for (String limit : new String[] {"0", "101", "-1", "abc", "1.5", ""}) {
            var r = admin.send("GET", "/workspaces?limit=" + limit, null, Map.of());
            assertError(r, 400, "invalid_request");
            assertTrue(r.body().path("error").path("details").path("fields").has("limit"));
        }
        assertEquals(200, admin.send("GET", "/workspaces?limit=100", null, Map.of()).status());
    }

    @Test
    void pathParametersAreChecked() {
        assertError(admin.send("GET", "/workspaces/a.b", null, Map.of()), 400, "invalid_request");
        assertError(admin.send("GET", "/workspaces/" + "a".repeat(65), null, Map.of()), 400, "invalid_request");
        assertError(admin.send("GET", "/workspaces/" + "a".repeat(27), null, Map.of()), 404, "not_found");
    }

    @Test
    void idempotencyKeyRules() {
        assertError(post("/workspaces", "{\"name\": \"no-key\"}", Map.of()), 400, "idempotency_key_required");
        assertError(post("/workspaces", "{\"name\": \"long-key\"}", Map.of("Idempotency-Key", "k".repeat(256))),
                400, "invalid_request");
        assertEquals(201, post("/workspaces", "{\"name\": \"max-key\"}", Map.of("Idempotency-Key", "k".repeat(255))).status());
    }

    @Test
    void missingOrBadTokens() {
        var none = server.anonymous().send("GET", "/me", null, Map.of());
        assertError(none, 401, "unauthenticated");
        assertTrue(none.header("WWW-Authenticate").orElseThrow().startsWith("Bearer"));
        assertError(server.withToken("garbage").send("GET", "/me", null, Map.of()), 401, "unauthenticated");
        assertError(server.anonymous().send("GET", "/me", null, Map.of("Authorization", "Basic YTpi")), 401, "unauthenticated");
    }

    @Test
    void successesCarryARequestIdToo() {
        var health = server.anonymous().send("GET", "/health", null, Map.of());
        assertEquals(200, health.status());
        assertEquals("ok", health.body().path("status").asText());
        assertEquals(27, health.header("X-Request-Id").orElseThrow().length());
    }

    @Test
    void protocolErrorsFromJettyUseTheEnvelope() throws Exception {
        // Every method: Jetty's own error pages are written for GET, POST and HEAD only unless told otherwise.
        for (String method : List.of("GET", "PATCH", "DELETE", "PUT")) {
            String answer = raw(method + " /v1/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
            assertTrue(answer.toLowerCase().contains("x-request-id: "), answer);
            assertTrue(answer.contains("\"code\":\"invalid_request\""), answer);
        }
        String slash = raw("DELETE /v1/variables/a%2Fb HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertTrue(slash.startsWith("HTTP/1.1 400") && slash.contains("\"request_id\""), slash);
    }

    @Test
    void aUrlOrHeadersTooLargeCarryTheirOwnCodesAndStatuses() throws Exception {
        String longUri = raw("GET /v1/workspaces?x=" + "a".repeat(9000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertTrue(longUri.startsWith("HTTP/1.1 414"), longUri);
        assertTrue(longUri.contains("\"code\":\"uri_too_long\""), longUri);
        String bigHeaders = raw("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(9000)
                + "\r\nConnection: close\r\n\r\n");
        assertTrue(bigHeaders.startsWith("HTTP/1.1 431"), bigHeaders);
        assertTrue(bigHeaders.contains("\"code\":\"headers_too_large\""), bigHeaders);
    }

    @Test
    void aNullWhereAnObjectBelongsIsRefusedNamingTheField() {
        var ws = TestServer.workspace(admin).path("id").asText();
        for (String ports : List.of("[null]", "[{\"target\": 80}, null]")) {
            var r = post("/workspaces/" + ws + "/computers", "{\"name\": \"nul\", \"image\": \"hearth/busybox\", "
                    + "\"ports\": " + ports + "}", key());
            assertError(r, 400, "invalid_request");
            assertTrue(r.body().path("error").path("details").path("fields").fieldNames().next().startsWith("ports"),
                    r.body().toString());
        }
    }

    @Test
    void wrongTypesSayWhatTheFieldMustBeWithoutNamingJavaTypes() {
        var ws = TestServer.workspace(admin).path("id").asText();
        var expected = Map.of("\"ports\": 5", "must be an array", "\"ports\": [5]", "must be an object",
                "\"resources\": []", "must be an object", "\"protected\": \"yes\"", "must be true or false",
                "\"command\": {}", "", "\"ports\": [{\"target\": \"x\"}]", "must be a whole number");
        expected.forEach((field, says) -> {
            var r = post("/workspaces/" + ws + "/computers", "{\"name\": \"typed\", \"image\": \"hearth/busybox\", "
                    + field + "}", key());
            assertError(r, 400, "invalid_request");
            String message = r.body().path("error").path("message").asText();
            assertTrue(message.contains(says), field + ": " + message);
            assertFalse(message.matches("(?s).*(java\\.|dev\\.hearth|\\$|ArrayList|Integer|Cannot deserialize).*"),
                    field + ": " + message);
        });
    }

    @Test
    void aBodyThatCannotBeFramedIsTheClientsError() throws Exception {
        String answer = raw("POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
        assertTrue(answer.contains("\"code\":\"invalid_request\""), answer);
    }

    private String raw(String request) throws Exception {
        var uri = URI.create(server.baseUrl());
        try (var socket = new Socket(uri.getHost(), uri.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void onlyJsonIsJsonAndOnlyInUtf8() {
        for (String type : new String[] {"application/jsonx", "application/json; charset=utf-16", "text/json",
                "application/json; boundary=x"}) {
            var headers = new HashMap<>(key());
            headers.put("Content-Type", type);
            assertError(post("/workspaces", "{\"name\": \"typed\"}", headers), 415, "unsupported_media_type");
        }
        var headers = new HashMap<>(key());
        headers.put("Content-Type", "application/json; charset=UTF-8");
        assertEquals(201, post("/workspaces", "{\"name\": \"" + TestServer.uniqueName("utf8") + "\"}", headers)
                .status());
    }

    @Test
    void deepNestingIsRefusedNotAnInternalError() {
        String deep = "{\"a\":".repeat(5000) + "1" + "}".repeat(5000);
        var ws = TestServer.workspace(admin).path("id").asText();
        var r = post("/workspaces/" + ws + "/computers", "{\"name\": \"deep\", \"image\": \"hearth/busybox\", "
                + "\"env\": " + deep + "}", key());
        assertError(r, 400, "invalid_request");
        assertTrue(r.body().path("error").path("message").asText().contains("nests deeper"), r.body().toString());
    }

    @Test
    void wholeNumbersOnlyWhereWholeNumbersBelong() {
        var ws = TestServer.workspace(admin).path("id").asText();
        var robot = admin.create("/workspaces/" + ws + "/access", Map.of("name", "floaty", "role", "viewer"));
        String principal = robot.path("access").path("principal").path("id").asText();
        var r = post("/workspaces/" + ws + "/access/" + principal + "/rotate_key", "{\"expires_in_days\": 1.5}",
                Map.of());
        assertError(r, 400, "invalid_request");
        assertTrue(r.body().path("error").path("details").path("fields").has("expires_in_days"), r.body().toString());
    }

    @Test
    void routesThatTakeNoBodyRefuseOne() {
        assertError(admin.send("GET", "/me", "{\"x\": 1}", Map.of()), 400, "invalid_request");
        assertEquals(200, admin.send("GET", "/me", "{}", Map.of()).status(), "an empty object is no body");
        var ws = TestServer.workspace(admin).path("id").asText();
        var invitation = admin.create("/workspaces/" + ws + "/invitations",
                Map.of("email", "resend@example.com", "role", "viewer")).path("invitation").path("id").asText();
        assertError(post("/invitations/" + invitation + "/resend", "{not json", Map.of()), 400, "invalid_request");
        assertError(post("/invitations/" + invitation + "/resend", "{\"again\": true}", Map.of()), 400,
                "invalid_request");
    }
}
