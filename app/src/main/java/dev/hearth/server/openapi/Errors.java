package dev.hearth.server.openapi;

import static dev.hearth.api.ErrorCode.BAD_GATEWAY;
import static dev.hearth.api.ErrorCode.CONFLICT;
import static dev.hearth.api.ErrorCode.FORBIDDEN;
import static dev.hearth.api.ErrorCode.GATEWAY_TIMEOUT;
import static dev.hearth.api.ErrorCode.HEADERS_TOO_LARGE;
import static dev.hearth.api.ErrorCode.IDEMPOTENCY_KEY_IN_USE;
import static dev.hearth.api.ErrorCode.IDEMPOTENCY_KEY_REQUIRED;
import static dev.hearth.api.ErrorCode.IDEMPOTENCY_KEY_REUSED;
import static dev.hearth.api.ErrorCode.INSUFFICIENT_STORAGE;
import static dev.hearth.api.ErrorCode.INTERNAL;
import static dev.hearth.api.ErrorCode.INVALID_CODE;
import static dev.hearth.api.ErrorCode.INVALID_GRANT;
import static dev.hearth.api.ErrorCode.INVALID_REQUEST;
import static dev.hearth.api.ErrorCode.LAST_ADMIN;
import static dev.hearth.api.ErrorCode.MAIL_UNAVAILABLE;
import static dev.hearth.api.ErrorCode.NODE_UNAVAILABLE;
import static dev.hearth.api.ErrorCode.NOT_EMPTY;
import static dev.hearth.api.ErrorCode.NOT_FOUND;
import static dev.hearth.api.ErrorCode.PAYLOAD_TOO_LARGE;
import static dev.hearth.api.ErrorCode.PROTECTED;
import static dev.hearth.api.ErrorCode.RATE_LIMITED;
import static dev.hearth.api.ErrorCode.RUNTIME_UNAVAILABLE;
import static dev.hearth.api.ErrorCode.STARTING;
import static dev.hearth.api.ErrorCode.STORE_UNAVAILABLE;
import static dev.hearth.api.ErrorCode.UNAUTHENTICATED;
import static dev.hearth.api.ErrorCode.UNSUPPORTED_GRANT_TYPE;
import static dev.hearth.api.ErrorCode.UNSUPPORTED_MEDIA_TYPE;
import static dev.hearth.api.ErrorCode.URI_TOO_LONG;
import static dev.hearth.api.ErrorCode.VARIABLE_MISSING;
import static dev.hearth.api.ErrorCode.WRONG_NODE;

import dev.hearth.api.ErrorCode;
import dev.hearth.server.http.Route;
import dev.hearth.server.http.Scope;
import java.util.EnumSet;
import java.util.Set;

/**
 * The error codes a route can answer, from what the route is: who may call it, whether it takes a
 * body and a key, and which feature's rules it runs. A superset: a client must handle each of these.
 */
final class Errors {
    private Errors() {
    }

    static Set<ErrorCode> of(Route route) {
        // Any request: a body over the limit or not JSON (even where none belongs), a URL or headers
        // too large for the listener, a server still starting.
        var codes = EnumSet.of(INVALID_REQUEST, RATE_LIMITED, INTERNAL, STORE_UNAVAILABLE, PAYLOAD_TOO_LARGE,
                UNSUPPORTED_MEDIA_TYPE, URI_TOO_LONG, HEADERS_TOO_LARGE, STARTING);
        if (!(route.scope() instanceof Scope.Public)) {
            codes.add(UNAUTHENTICATED);
            if (route.mutation()) {
                codes.add(FORBIDDEN); // sent with the web console's cookie but not its header
            }
        }
        if (route.scope() instanceof Scope.Operator) {
            codes.add(FORBIDDEN);
        }
        if (route.scope() instanceof Scope.InWorkspace || route.scope() instanceof Scope.OfResource) {
            codes.addAll(EnumSet.of(FORBIDDEN, NOT_FOUND));
        }
        if (route.mutation() && !route.streamsBody()) {
            codes.addAll(EnumSet.of(IDEMPOTENCY_KEY_IN_USE, IDEMPOTENCY_KEY_REUSED));
        }
        if (route.keyRequired()) {
            // Creates are refused while the disk is under the reserve.
            codes.addAll(EnumSet.of(IDEMPOTENCY_KEY_REQUIRED, INSUFFICIENT_STORAGE));
        }
        codes.addAll(ofFeature(route));
        return codes;
    }

    private static Set<ErrorCode> ofFeature(Route route) {
        String template = route.template();
        String feature = template.startsWith("/workspaces/{ws}/") ? template.split("/")[3] : template.split("/")[1];
        return switch (feature) {
            case "auth" -> EnumSet.of(INVALID_GRANT, UNSUPPORTED_GRANT_TYPE, INVALID_CODE, MAIL_UNAVAILABLE,
                    UNAUTHENTICATED, FORBIDDEN);
            // An API key acts in its own workspace only: it may not make workspaces (403).
            case "workspaces" -> route.method().equals("DELETE") ? EnumSet.of(NOT_EMPTY) : EnumSet.of(CONFLICT, FORBIDDEN);
            case "access" -> EnumSet.of(CONFLICT, LAST_ADMIN);
            case "invitations" -> EnumSet.of(CONFLICT, MAIL_UNAVAILABLE, NOT_FOUND, FORBIDDEN);
            case "variables", "queries" -> EnumSet.of(CONFLICT);
            // Work on another node's computer or database, or on one whose node is down or draining.
            case "computers" -> EnumSet.of(CONFLICT, PROTECTED, VARIABLE_MISSING, RUNTIME_UNAVAILABLE,
                    INSUFFICIENT_STORAGE, BAD_GATEWAY, GATEWAY_TIMEOUT, WRONG_NODE, NODE_UNAVAILABLE);
            case "databases" -> EnumSet.of(CONFLICT, PROTECTED, RUNTIME_UNAVAILABLE, INSUFFICIENT_STORAGE, WRONG_NODE,
                    NODE_UNAVAILABLE);
            case "images" -> EnumSet.of(CONFLICT, RUNTIME_UNAVAILABLE, INSUFFICIENT_STORAGE);
            default -> EnumSet.noneOf(ErrorCode.class);
        };
    }
}
