package dev.hearth.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.KeyFileTokens;
import java.time.Duration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** A terminal in a computer, as {@code hearth exec -it} opens one: the exec route's WebSocket. */
public final class TestTerminal {
    private final StringBuffer output = new StringBuffer();
    private final CompletableFuture<String> end = new CompletableFuture<>();
    private final WebSocket socket;

    private TestTerminal(TestServer server, String computer) throws Exception {
        String token = KeyFileTokens.read(server.dataDir.resolve("admin-key.json")).token(server.admin()).orElseThrow();
        socket = HttpClient.newHttpClient().newWebSocketBuilder().header("Authorization", "Bearer " + token)
                .buildAsync(URI.create(server.baseUrl().replace("http://", "ws://") + "/computers/" + computer + "/exec"),
                        new WebSocket.Listener() {
                            @Override
                            public CompletionStage<?> onBinary(WebSocket w, ByteBuffer data, boolean last) {
                                output.append(StandardCharsets.UTF_8.decode(data));
                                w.request(1);
                                return null;
                            }

                            @Override
                            public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                                end.complete(data.toString());
                                w.request(1);
                                return null;
                            }
                        }).join();
    }

    /** Opens a terminal of {@code cols} x {@code rows} running {@code shell}. */
    public static TestTerminal open(TestServer server, String computer, String shell, int cols, int rows) throws Exception {
        var terminal = new TestTerminal(server, computer);
        terminal.socket.sendText("{\"command\": [\"" + shell + "\"], \"cols\": " + cols + ", \"rows\": " + rows + "}", true).join();
        return terminal;
    }

    public void type(String keys) {
        socket.sendBinary(ByteBuffer.wrap(keys.getBytes(StandardCharsets.UTF_8)), true).join();
    }

    public void resize(int cols, int rows) {
        socket.sendText("{\"resize\": {\"cols\": " + cols + ", \"rows\": " + rows + "}}", true).join();
    }

    /** Waits up to 10 s for {@code expected} in what the terminal has shown. */
    public void await(String expected) {
        Eventually.eventually(Duration.ofSeconds(10), () -> output.toString().contains(expected));
        assertTrue(output.toString().contains(expected), "terminal said: " + output);
    }

    /** The closing message ({@code {"exit_code":N}}) once the shell ends. */
    public String end() throws Exception {
        return end.get(20, TimeUnit.SECONDS);
    }
}
