package dev.hearth.server.http;

import dev.hearth.api.ErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;

/** A failure the client should see: a code, a human message and structured details. */
public final class ApiException extends RuntimeException {
    private final ErrorCode code;
    private final Map<String, Object> details;

    public ApiException(ErrorCode code, String message, Map<String, Object> details) {
        super(message, null, false, false);
        this.code = code;
        this.details = details;
    }

    public ApiException(ErrorCode code, String message) {
        this(code, message, Map.of());
    }

    public ErrorCode code() {
        return code;
    }

    public Map<String, Object> details() {
        return details;
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
