package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Base64;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * envd, as Hearth serves it for port 49983 of every E2B sandbox: the Connect RPCs of processes and
 * files, {@code /files} and {@code /health}. RPCs and {@code /files} need the sandbox's access token
 * ({@code X-Access-Token}), or for {@code /files} a signature made with it; {@code /health} needs
 * nothing and answers 502 for a sandbox that is paused or gone.
 */
final class Envd {
    private static final Logger LOG = LoggerFactory.getLogger(Envd.class);
    private static final String PROCESS = "/process.Process/";
    private static final String FILESYSTEM = "/filesystem.Filesystem/";

    private final Sandboxes sandboxes;
    private final E2bAuth auth;
    private final V1 v1;
    private final EnvdProcesses processes;
    private final EnvdFilesystem filesystem;
    private final EnvdFiles files;
    private final Clock clock;

    Envd(Sandboxes sandboxes, E2bAuth auth, V1 v1, EnvdFiles files, Clock clock) {
        this.sandboxes = sandboxes;
        this.auth = auth;
        this.v1 = v1;
        this.processes = new EnvdProcesses(v1);
        this.filesystem = new EnvdFilesystem(v1);
        this.files = files;
        this.clock = clock;
    }

    /** Serves one request to sandbox {@code id}'s envd at {@code path} (the request's own path, less any prefix). */
    void serve(String id, String path, Request request, Response response, Callback callback) {
        try {
            var row = sandboxes.known(id).orElseThrow(() -> notFound(id));
            if (path.equals("/health")) {
                health(id, row, response, callback);
                return;
            }
            if (path.equals("/files")) {
                files(id, row, request, response, callback);
                return;
            }
            requireToken(id, request);
            var call = new EnvdCall(id, user(request), auth.onBehalfOf(row.apiKey()));
            if (path.startsWith(PROCESS) || path.startsWith(FILESYSTEM)) {
                rpc(call, path, request, response, callback);
            } else {
                E2bReply.error(response, callback, 404, "envd has no route " + path);
            }
        } catch (E2bException e) {
            E2bReply.error(response, callback, e);
        } catch (RuntimeException | IOException e) {
            fault(request, response, callback, e);
        }
    }

    private void rpc(EnvdCall call, String path, Request request, Response response, Callback callback)
            throws IOException {
        String method = path.substring(path.lastIndexOf('/') + 1);
        boolean streaming = method.equals("Start") || method.equals("Connect") || method.equals("WatchDir");
        if (!streaming) {
            try {
                Connect.answer(response, callback, unary(call, path.startsWith(PROCESS), method, Connect.unary(request)));
            } catch (Connect.Failure f) {
                Connect.fail(response, callback, f);
            } catch (E2bException e) {
                Connect.fail(response, callback, Connect.of(e));
            }
            return;
        }
        var message = Connect.streamed(request);
        var out = new Connect.Stream(response);
        var ping = E2bJson.object();
        ping.putObject("keepalive");
        out.keepAlive(request.getHeaders().get("Keepalive-Ping-Interval"),
                method.equals("WatchDir") ? ping : EnvdProcesses.event("keepalive", E2bJson.object()));
        var deadline = Deadline.of(request.getHeaders().get("Connect-Timeout-Ms"));
        try {
            try {
                switch (method) {
                    case "Start" -> processes.start(call, message, out, deadline);
                    case "Connect" -> processes.connect(call, message, out, deadline);
                    default -> filesystem.watch(call, message, out);
                }
            } catch (Connect.Failure f) {
                out.end(f);
            } catch (E2bException e) {
                out.end(Connect.of(e));
            }
            callback.succeeded();
        } catch (IOException e) {
            // The stream broke off (its sandbox went, or its client): the connection goes, as envd's would.
            out.stop();
            callback.failed(e);
        }
    }

    private JsonNode unary(EnvdCall call, boolean process, String method, JsonNode message) {
        if (process) {
            return switch (method) {
                case "List" -> processes.list(call);
                case "SendInput" -> processes.input(call, message);
                case "CloseStdin" -> processes.closeStdin(call, message);
                case "SendSignal" -> processes.signal(call, message);
                case "Update" -> processes.update(call, message);
                default -> throw new Connect.Failure("unimplemented", "process." + method + " is not offered");
            };
        }
        return switch (method) {
            case "Stat" -> filesystem.stat(call, message);
            case "ListDir" -> filesystem.list(call, message);
            case "MakeDir" -> filesystem.makeDir(call, message);
            case "Move" -> filesystem.move(call, message);
            case "Remove" -> filesystem.remove(call, message);
            default -> throw new Connect.Failure("unimplemented", "filesystem." + method + " is not offered");
        };
    }

    /** 204 while the sandbox runs; 502 (what E2B's SDK takes for "not running") once paused or gone. */
    private void health(String id, E2bStore.Sandbox row, Response response, Callback callback) {
        var answer = v1.get("/computers/" + id, auth.onBehalfOf(row.apiKey()));
        var computer = answer.ok() ? answer.body().path("computer") : null;
        // One being deleted is gone already: its streams are cut before its record says deleted.
        boolean live = computer != null && computer.path("deleted_at").isNull()
                && !computer.path("pending").asText().equals("deleting");
        boolean running = live && (computer.path("state").asText().equals("ready") || row.autoResume()
                && computer.path("state").asText().equals("sleeping"));
        if (running) {
            E2bReply.empty(response, callback);
            return;
        }
        throw E2bException.unreachable(id, live);
    }

    private void files(String id, E2bStore.Sandbox row, Request request, Response response, Callback callback)
            throws IOException {
        var query = Request.extractQueryParameters(request);
        String path = query.getValue("path");
        String username = query.getValue("username");
        String method = request.getMethod();
        if (request.getHeaders().get("X-Access-Token") == null) {
            checkSignature(id, path == null ? "" : path, method.equals("GET") ? "read" : "write", username,
                    query.getValue("signature"), query.getValue("signature_expiration"));
        } else {
            requireToken(id, request);
        }
        var call = new EnvdCall(id, username == null || username.isEmpty() ? EnvdCall.DEFAULT_USER : username,
                auth.onBehalfOf(row.apiKey()));
        switch (method) {
            case "GET" -> files.download(call, path, response, callback);
            case "POST" -> files.upload(call, path, request, response, callback);
            default -> throw new E2bException(405, method + " is not allowed on /files");
        }
    }

    /** The SDK's {@code v1_} signature: base64 of SHA-256 over path:operation:user:token[:expiration]. */
    private void checkSignature(String id, String path, String operation, String user, String signature,
                                String expiration) {
        if (signature == null) {
            throw new E2bException(401, "send the sandbox's access token (X-Access-Token) or a signature");
        }
        String raw = path + ":" + operation + ":" + (user == null ? "" : user) + ":" + sandboxes.token(id)
                + (expiration == null ? "" : ":" + expiration);
        String expected;
        try {
            expected = "v1_" + Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(raw.getBytes(StandardCharsets.UTF_8))).replaceAll("=+$", "");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                signature.getBytes(StandardCharsets.US_ASCII))) {
            throw new E2bException(401, "invalid signature");
        }
        if (expiration != null) {
            long until;
            try {
                until = Long.parseLong(expiration);
            } catch (NumberFormatException e) {
                throw new E2bException(401, "invalid signature expiration");
            }
            if (until < clock.instant().getEpochSecond()) {
                throw new E2bException(401, "signature is already expired");
            }
        }
    }

    private void requireToken(String id, Request request) {
        String given = request.getHeaders().get("X-Access-Token");
        if (given == null || !MessageDigest.isEqual(given.getBytes(StandardCharsets.US_ASCII),
                sandboxes.token(id).getBytes(StandardCharsets.US_ASCII))) {
            throw new E2bException(401, "the sandbox's access token (X-Access-Token) is missing or wrong");
        }
    }

    /** The user of {@code Authorization: Basic base64(user:)}, else E2B's default. */
    private static String user(Request request) {
        String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return EnvdCall.DEFAULT_USER;
        }
        try {
            String pair = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
            String user = pair.contains(":") ? pair.substring(0, pair.indexOf(':')) : pair;
            return user.isEmpty() ? EnvdCall.DEFAULT_USER : user;
        } catch (IllegalArgumentException e) {
            return EnvdCall.DEFAULT_USER;
        }
    }

    /** What E2B's proxy answers for a sandbox it does not know (any port). */
    static E2bException notFound(String id) {
        return E2bException.unreachable(id, false);
    }

    private static void fault(Request request, Response response, Callback callback, Exception e) {
        String id = Ids.next();
        LOG.error("envd request {} {} {} failed", id, request.getMethod(), request.getHttpURI().getPath(), e);
        if (response.isCommitted()) {
            callback.failed(e);
        } else {
            E2bReply.error(response, callback, 500, "internal error; quote request id " + id + " when reporting it");
        }
    }
}
