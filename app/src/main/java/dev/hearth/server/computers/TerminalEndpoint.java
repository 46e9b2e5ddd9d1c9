package dev.hearth.server.computers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Json;
import dev.hearth.api.computers.ExecRequest;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.http.ErrorEnvelope;
import dev.hearth.server.sandbox.Terminal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WebSocket of an interactive exec. The first text message starts the command on a terminal:
 * {@code {command?, env?, cwd?, cols?, rows?}} (default /bin/sh, 80x24). Then binary messages are
 * keystrokes, text messages {@code {"resize": {"cols", "rows"}}} or {@code {"stdin": "..."}}; the
 * terminal's output comes back as binary messages, then {@code {"exit_code": N}} and a close. Closing
 * the socket kills the command.
 */
public final class TerminalEndpoint implements Session.Listener.AutoDemanding {
    private static final Logger LOG = LoggerFactory.getLogger(TerminalEndpoint.class);

    private final ComputerService service;
    private final Workspace workspace;
    private final String computer;
    private final String requestId;
    private volatile Session session;
    private volatile Terminal terminal;

    TerminalEndpoint(ComputerService service, Workspace workspace, String computer, String requestId) {
        this.service = service;
        this.workspace = workspace;
        this.computer = computer;
        this.requestId = requestId;
    }

    @Override
    public void onWebSocketOpen(Session session) {
        this.session = session;
    }

    @Override
    public void onWebSocketText(String message) {
        try {
            JsonNode m = Json.mapper().readTree(message);
            if (terminal == null) {
                start(m);
            } else if (m.has("resize")) {
                terminal.resize(m.path("resize").path("cols").asInt(80), m.path("resize").path("rows").asInt(24));
            } else if (m.has("stdin")) {
                terminal.write(m.path("stdin").asText().getBytes(StandardCharsets.UTF_8));
            }
        } catch (ApiException e) {
            finish(ErrorEnvelope.of(e, requestId), 1008);
        } catch (IOException | RuntimeException e) {
            finish(ErrorEnvelope.of(new ApiException(ErrorCode.INVALID_REQUEST, String.valueOf(e.getMessage())),
                    requestId), 1008);
        }
    }

    private void start(JsonNode m) throws IOException {
        List<String> command = m.has("command") ? Json.mapper().convertValue(m.path("command"),
                Json.mapper().getTypeFactory().constructCollectionType(List.class, String.class)) : List.of("/bin/sh");
        Map<String, String> env = m.has("env") ? Json.mapper().convertValue(m.path("env"),
                Json.mapper().getTypeFactory().constructMapType(Map.class, String.class, String.class)) : null;
        var request = new ExecRequest(command, env, m.path("cwd").isTextual() ? m.path("cwd").asText() : null,
                null, 3600, null, m.path("user").isTextual() ? m.path("user").asText() : null);
        int cols = m.path("cols").asInt(80);
        int rows = m.path("rows").asInt(24);
        terminal = service.prepareExec(workspace, computer, request).terminal(cols, rows);
        Thread.ofPlatform().daemon().name("terminal-" + computer).start(this::pump);
    }

    /** Copies terminal output to the socket in order, then reports the exit code and closes. */
    private void pump() {
        byte[] buffer = new byte[16 * 1024];
        try {
            for (int n = terminal.read(buffer); n > 0; n = terminal.read(buffer)) {
                var sent = new Callback.Completable();
                session.sendBinary(ByteBuffer.wrap(buffer.clone(), 0, n), sent);
                sent.get();
            }
            finish(Map.of("exit_code", terminal.waitFor()), 1000);
        } catch (Exception gone) {
            LOG.debug("terminal of {} ended: {}", computer, gone.toString());
            terminal.kill();
        } finally {
            terminal.close();
        }
    }

    private void finish(Object last, int status) {
        try {
            var sent = new Callback.Completable();
            session.sendText(Json.mapper().writeValueAsString(last), sent);
            sent.get();
        } catch (Exception ignored) {
            // the client is gone; closing is all that is left
        }
        session.close(status, status == 1000 ? "exited" : "refused", Callback.NOOP);
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
        try {
            if (terminal != null) {
                byte[] bytes = new byte[payload.remaining()];
                payload.get(bytes);
                terminal.write(bytes);
            }
            callback.succeed();
        } catch (IOException e) {
            callback.fail(e);
        }
    }

    @Override
    public void onWebSocketClose(int status, String reason, Callback callback) {
        var t = terminal;
        if (t != null) {
            t.kill();
            t.close();
        }
        callback.succeed();
    }
}
