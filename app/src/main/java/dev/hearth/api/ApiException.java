package dev.hearth.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A failure the client should see, keyed by its {@link ErrorCode}: thrown by the services and the
 * store, rendered as the error envelope by the HTTP layer, and made again from an error answer by
 * the client, so both sides handle the same typed error.
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String code;
    private final Map<String, Object> details;
    private final String requestId;

    private ApiException(int status, String code, String message, Map<String, Object> details, String requestId) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.details = details;
        this.requestId = requestId;
    }

    public ApiException(ErrorCode code, String message, Map<String, Object> details) {
        this(code.status(), code.code(), message, details, null);
    }

    public ApiException(ErrorCode code, String message) {
        this(code, message, Map.of());
    }

    /**
     * The error an answer carried: its envelope, or for an answer without one (a proxy's error
     * page) the code {@code http_STATUS}.
     */
    public static ApiException fromResponse(int status, JsonNode body) {
        JsonNode error = body == null ? null : body.path("error");
        if (error == null || !error.isObject()) {
            return new ApiException(status, "http_" + status, "HTTP " + status, Map.of(), null);
        }
        Map<String, Object> details = error.path("details").isObject()
                ? Json.mapper().convertValue(error.path("details"), Json.MAP) : Map.of();
        return new ApiException(status, error.path("code").asText(), error.path("message").asText(), details,
                error.path("request_id").asText(null));
    }

    /** The wire code: a stable snake_case string. */
    public String code() {
        return code;
    }

    /** The code as this build knows it; empty for a code it does not know (a newer server's). */
    public Optional<ErrorCode> errorCode() {
        return ErrorCode.fromCode(code);
    }

    public boolean is(ErrorCode other) {
        return code.equals(other.code());
    }

    public int status() {
        return status;
    }

    public Map<String, Object> details() {
        return details;
    }

    /** The request id of the answer that carried this error; null for an error not yet answered. */
    public String requestId() {
        return requestId;
    }

    public static ApiException notFound(String what) {
        return new ApiException(ErrorCode.NOT_FOUND, what + " not found");
    }

    public static ApiException invalidField(String field, String problem) {
        return invalidFields(Map.of(field, problem));
    }

    public static ApiException invalidFields(Map<String, String> fields) {
        var details = new LinkedHashMap<String, Object>();
        details.put("fields", fields);
        var first = fields.entrySet().iterator().next();
        String message = fields.size() == 1
                ? first.getKey() + ": " + first.getValue()
                : "invalid fields: " + String.join(", ", fields.keySet());
        return new ApiException(ErrorCode.INVALID_REQUEST, message, details);
    }

    public static ApiException unauthenticated(String message) {
        return new ApiException(ErrorCode.UNAUTHENTICATED, message);
    }

    public static ApiException conflict(String message) {
        return new ApiException(ErrorCode.CONFLICT, message);
    }
}
