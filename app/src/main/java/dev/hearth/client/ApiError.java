package dev.hearth.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ErrorCode;
import java.util.Optional;

/** An error answer of the API, turned back into a typed exception. */
public final class ApiError extends RuntimeException {
    private final int status;
    private final String code;
    private final JsonNode details;
    private final String requestId;

    public ApiError(int status, String code, String message, JsonNode details, String requestId) {
        super(message);
        this.status = status;
        this.code = code;
        this.details = details;
        this.requestId = requestId;
    }

    static ApiError from(int status, JsonNode body) {
        JsonNode error = body == null ? null : body.path("error");
        if (error == null || !error.isObject()) {
            return new ApiError(status, "http_" + status, "HTTP " + status, null, null);
        }
        return new ApiError(status, error.path("code").asText(), error.path("message").asText(),
                error.path("details"), error.path("request_id").asText(null));
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public Optional<ErrorCode> errorCode() {
        return ErrorCode.fromCode(code);
    }

    public JsonNode details() {
        return details;
    }

    public String requestId() {
        return requestId;
    }
}
