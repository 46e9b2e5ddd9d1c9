package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.net.URI;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * The web console's cookie on API requests: a request that carries it and no Authorization is
 * served as its sign-in's bearer would be. Cross-site requests cannot use it: besides SameSite=Strict,
 * a request that changes something must carry {@link #HEADER} (which no form can send) and a
 * WebSocket must come from this server's own origin.
 */
public final class ConsoleCookie {
    public static final String NAME = "hearth_console";
    public static final String HEADER = "x-hearth-console";

    private ConsoleCookie() {
    }

    /** Puts the cookie's Authorization into {@code headers} (lowercase names), once its request is checked. */
    static void authorize(Map<String, String> headers, String method, Guard guard) {
        if (headers.containsKey("authorization")) {
            return;
        }
        var token = of(Optional.ofNullable(headers.get("cookie")));
        if (token.isEmpty()) {
            return;
        }
        if ("websocket".equalsIgnoreCase(headers.getOrDefault("upgrade", ""))) {
            requireSameOrigin(headers);
        } else if (!method.equals("GET") && !method.equals("HEAD")) {
            requireHeader(Optional.ofNullable(headers.get(HEADER)));
        }
        headers.put("authorization", guard.consoleAuthorization(token.get()));
    }

    /** A change sent with the cookie carries the console's header, or it is refused (403). */
    public static void requireHeader(Optional<String> header) {
        if (header.isEmpty()) {
            throw new ApiException(ErrorCode.FORBIDDEN, "a request signed in by the console's cookie must carry "
                    + "the X-Hearth-Console header");
        }
    }

    private static void requireSameOrigin(Map<String, String> headers) {
        String origin = headers.getOrDefault("origin", "");
        String host = headers.getOrDefault("host", "");
        String originHost;
        try {
            originHost = origin.isEmpty() ? "" : URI.create(origin).getAuthority();
        } catch (IllegalArgumentException e) {
            originHost = "";
        }
        if (host.isEmpty() || !host.equalsIgnoreCase(originHost)) {
            throw new ApiException(ErrorCode.FORBIDDEN, "a WebSocket signed in by the console's cookie must come "
                    + "from the console's own origin");
        }
    }

    /** The console's cookie in a Cookie header, if there is one. */
    public static Optional<String> of(Optional<String> cookieHeader) {
        return cookieHeader.flatMap(h -> Arrays.stream(h.split(";")).map(String::strip)
                .filter(c -> c.startsWith(NAME + "=")).findFirst()
                .map(c -> c.substring(NAME.length() + 1)).filter(v -> !v.isEmpty()));
    }
}
