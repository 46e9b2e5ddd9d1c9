package dev.hearth.api;

import java.util.Locale;
import java.util.Optional;

/**
 * Every error code the API answers, with its HTTP status. Shared by the server, which renders it,
 * and the client, which turns an error response back into a typed error.
 */
public enum ErrorCode {
    HTTPS_REQUIRED(308),
    INVALID_REQUEST(400),
    IDEMPOTENCY_KEY_REQUIRED(400),
    INVALID_GRANT(400),
    UNSUPPORTED_GRANT_TYPE(400),
    INVALID_CODE(400),
    UNAUTHENTICATED(401),
    FORBIDDEN(403),
    NOT_FOUND(404),
    METHOD_NOT_ALLOWED(405),
    CONFLICT(409),
    IDEMPOTENCY_KEY_IN_USE(409),
    LAST_ADMIN(409),
    NOT_EMPTY(409),
    PROTECTED(409),
    VARIABLE_MISSING(409),
    PAYLOAD_TOO_LARGE(413),
    URI_TOO_LONG(414),
    UNSUPPORTED_MEDIA_TYPE(415),
    IDEMPOTENCY_KEY_REUSED(422),
    WRONG_NODE(421),
    RATE_LIMITED(429),
    HEADERS_TOO_LARGE(431),
    INTERNAL(500),
    BAD_GATEWAY(502),
    MAIL_UNAVAILABLE(503),
    NODE_UNAVAILABLE(503),
    RUNTIME_UNAVAILABLE(503),
    STORE_UNAVAILABLE(503),
    STARTING(503),
    GATEWAY_TIMEOUT(504),
    INSUFFICIENT_STORAGE(507);

    private final int status;

    ErrorCode(int status) {
        this.status = status;
    }

    public int status() {
        return status;
    }

    /** The wire form: a stable snake_case string. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<ErrorCode> fromCode(String code) {
        for (var c : values()) {
            if (c.code().equals(code)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
