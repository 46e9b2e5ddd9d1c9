package dev.hearth.server.e2b;

import dev.hearth.api.computers.ComputerState;
import dev.hearth.server.computers.RouteTargets;
import dev.hearth.server.router.ComputerProxy;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * E2B's host names on the router, beside Hearth's own: {@code api.DOMAIN} is E2B's control plane,
 * {@code PORT-ID.DOMAIN} a sandbox's port (49983 its envd), and a request to any other host that
 * names a sandbox in {@code E2b-Sandbox-Id} and {@code E2b-Sandbox-Port} (E2B_SANDBOX_URL pointed at
 * the router) goes the same way. Other ports go on to the computer router, by id and any port; a
 * sandbox that is gone, or paused without auto-resume, answers 502 as E2B's proxy does.
 */
final class E2bHosts extends Handler.Abstract {
    static final int ENVD_PORT = 49983;
    private static final Pattern SANDBOX_HOST = Pattern.compile("(\\d{1,5})-([0-9a-z]{27})");

    private final String domain;
    private final E2bApi api;
    private final Envd envd;
    private final Sandboxes sandboxes;
    private final RouteTargets targets;

    E2bHosts(String domain, E2bApi api, Envd envd, Sandboxes sandboxes, RouteTargets targets) {
        this.domain = domain;
        this.api = api;
        this.envd = envd;
        this.sandboxes = sandboxes;
        this.targets = targets;
    }

    /** A sandbox and port a request names. */
    private record Named(String sandbox, int port) {
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String host = hostName(request.getHeaders().get(HttpHeader.HOST));
        if (host.equals("api." + domain)) {
            return api.handle(request, response, callback);
        }
        var named = named(host, request);
        if (named.isEmpty()) {
            return false;
        }
        String id = named.get().sandbox();
        if (named.get().port() == ENVD_PORT) {
            envd.serve(id, request.getHttpURI().getDecodedPath(), request, response, callback);
            return true;
        }
        var row = sandboxes.known(id);
        var target = row.flatMap(r -> targets.byId(id, named.get().port()));
        if (target.isEmpty()) {
            E2bReply.error(response, callback, E2bException.unreachable(id, false));
            return true;
        }
        if (target.get().computer().state() == ComputerState.SLEEPING && !row.get().autoResume()) {
            E2bReply.error(response, callback, E2bException.unreachable(id, true));
            return true;
        }
        request.setAttribute(ComputerProxy.RESOLVED, target.get());
        return false;
    }

    private Optional<Named> named(String host, Request request) {
        if (host.endsWith("." + domain)) {
            var m = SANDBOX_HOST.matcher(host.substring(0, host.length() - domain.length() - 1));
            if (m.matches()) {
                return Optional.of(new Named(m.group(2), Integer.parseInt(m.group(1))));
            }
        }
        String id = request.getHeaders().get("E2b-Sandbox-Id");
        String port = request.getHeaders().get("E2b-Sandbox-Port");
        if (id == null || port == null || host.contains("--") || !port.matches("\\d{1,5}")) {
            return Optional.empty();
        }
        return Optional.of(new Named(id, Integer.parseInt(port)));
    }

    private static String hostName(String host) {
        if (host == null) {
            return "";
        }
        String name = host.startsWith("[") ? host.substring(0, host.indexOf(']') + 1) : host.replaceFirst(":\\d+$", "");
        return name.toLowerCase(java.util.Locale.ROOT);
    }
}
