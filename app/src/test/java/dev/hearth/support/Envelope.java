package dev.hearth.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient.Response;

/** Checks an answer is the error envelope: status, code, a message, details, and the request id. */
public final class Envelope {
    private Envelope() {
    }

    public static void assertError(Response r, int status, String code) {
        assertEquals(status, r.status(), () -> "body: " + r.body());
        var error = r.body().path("error");
        assertEquals(code, error.path("code").asText(), () -> "body: " + r.body());
        assertFalse(error.path("message").asText().isBlank());
        assertTrue(error.path("details").isObject());
        assertEquals(r.header("X-Request-Id").orElseThrow(), error.path("request_id").asText());
        assertFalse(r.body().toString().contains("Exception"), "no stack traces or exception names");
    }
}
