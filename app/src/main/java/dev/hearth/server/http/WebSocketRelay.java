package dev.hearth.server.http;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.store.Ids;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.server.WebSocketCreator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays one WebSocket between a client and the far side (a computer, or the node that runs it),
 * message by message: Jetty's proxy does not pass upgrades, so the router and the API end the
 * client's WebSocket and open their own to the far side. A side reads its next message only once
 * the other side is open and the previous message was sent, so order and back-pressure hold in
 * both directions without blocking a thread.
 */
public final class WebSocketRelay {
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketRelay.class);
    private final CompletableFuture<Session> client = new CompletableFuture<>();
    private final CompletableFuture<Session> far = new CompletableFuture<>();
    private final Runnable onClose;
    private volatile boolean closed;

    public WebSocketRelay(Runnable onClose) {
        this.onClose = onClose;
    }

    /**
     * What upgrades the client's WebSocket: opens the far side at {@code uri} (its upgrade request
     * dressed by {@code headers}) and relays between the two; when the far side does not accept,
     * the client is answered 502 with {@code refusal}.
     */
    public WebSocketCreator to(WebSocketClient client, URI uri,
                               BiConsumer<ServerUpgradeRequest, ClientUpgradeRequest> headers, String refusal) {
        return (upgrade, upgradeResponse, upgradeCallback) -> {
            var onward = new ClientUpgradeRequest();
            headers.accept(upgrade, onward);
            try {
                var session = client.connect(farSide(), uri, onward).get(10, TimeUnit.SECONDS);
                String accepted = session.getUpgradeResponse().getAcceptedSubProtocol();
                if (accepted != null) {
                    upgradeResponse.setAcceptedSubProtocol(accepted);
                }
                return clientSide();
            } catch (Exception e) {
                LOG.info("no WebSocket to {}: {}", uri, e.toString());
                closeBoth(1011, "no WebSocket");
                ErrorEnvelope.write(upgradeResponse, upgradeCallback, new ApiException(ErrorCode.BAD_GATEWAY,
                        refusal + ": " + e.getMessage()), Ids.next());
                return null;
            }
        };
    }

    /** The endpoint of the client's WebSocket: what it sends goes to the far side. */
    public Session.Listener clientSide() {
        return new Side(client, far);
    }

    /** The endpoint of the WebSocket to the far side: what it sends goes to the client. */
    public Session.Listener farSide() {
        return new Side(far, client);
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

    public void closeBoth(int status, String reason) {
        if (closed) {
            return;
        }
        closed = true;
        // 1005 and 1006 only say that no status came; they may not be sent.
        int code = status == 1005 || status == 1006 ? 1000 : status;
        client.thenAccept(s -> s.close(code, reason, Callback.NOOP));
        far.thenAccept(s -> s.close(code, reason, Callback.NOOP));
        onClose.run();
    }
}
