package dev.hearth.server.router;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays one WebSocket between a client and a computer, message by message: Jetty's proxy does not
 * pass upgrades, so the router ends the client's WebSocket and opens its own to the computer. A side
 * reads its next message only once the other side is open and the previous message was sent, so
 * order and back-pressure hold in both directions without blocking a thread.
 */
public final class WebSocketRelay {
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketRelay.class);
    private final CompletableFuture<Session> client = new CompletableFuture<>();
    private final CompletableFuture<Session> computer = new CompletableFuture<>();
    private final Runnable onClose;
    private volatile boolean closed;

    WebSocketRelay(Runnable onClose) {
        this.onClose = onClose;
    }

    /** The endpoint of the client's WebSocket: what it sends goes to the computer. */
    Session.Listener clientSide() {
        return new Side(client, computer);
    }

    /** The endpoint of the WebSocket to the computer: what it sends goes to the client. */
    Session.Listener computerSide() {
        return new Side(computer, client);
    }

    /** One end of the relay; Jetty calls it, so it is public. */
    public final class Side implements Session.Listener {
        private final CompletableFuture<Session> self;
        private final CompletableFuture<Session> other;
        private volatile Session session;

        Side(CompletableFuture<Session> self, CompletableFuture<Session> other) {
            this.self = self;
            this.other = other;
        }

        @Override
        public void onWebSocketOpen(Session opened) {
            session = opened;
            self.complete(opened);
            other.thenRun(opened::demand);
        }

        @Override
        public void onWebSocketText(String message) {
            other.join().sendText(message, next(null));
        }

        @Override
        public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
            other.join().sendBinary(payload, next(callback));
        }

        @Override
        public void onWebSocketPing(ByteBuffer payload) {
            session.sendPong(payload, next(null));
        }

        @Override
        public void onWebSocketPong(ByteBuffer payload) {
            session.demand();
        }

        @Override
        public void onWebSocketClose(int status, String reason, Callback callback) {
            closeBoth(status, reason);
            callback.succeed();
        }

        @Override
        public void onWebSocketError(Throwable cause) {
            LOG.debug("relayed WebSocket failed", cause);
            closeBoth(1011, "relay failed");
        }

        /** Once a message is through: release its buffer and read the next one. */
        private Callback next(Callback after) {
            return Callback.from(() -> {
                if (after != null) {
                    after.succeed();
                }
                session.demand();
            }, failure -> {
                if (after != null) {
                    after.fail(failure);
                }
                closeBoth(1011, "relay failed");
            });
        }
    }

    void closeBoth(int status, String reason) {
        if (closed) {
            return;
        }
        closed = true;
        // 1005 and 1006 only say that no status came; they may not be sent.
        int code = status == 1005 || status == 1006 ? 1000 : status;
        client.thenAccept(s -> s.close(code, reason, Callback.NOOP));
        computer.thenAccept(s -> s.close(code, reason, Callback.NOOP));
        onClose.run();
    }
}
