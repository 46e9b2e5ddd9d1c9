package dev.hearth.cli;

import dev.hearth.api.JsonTrees;
import dev.hearth.client.Trust;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * {@code hearth exec -it}: the computer's terminal over a WebSocket. A real terminal here is put in
 * raw mode (restored after) and its size, and changes of it, are sent along; without one (pipes,
 * tests) the session still works at 80x24.
 */
final class TerminalSession {
    private final PrintStream out;
    private final InputStream in;
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();

    TerminalSession(PrintStream out, InputStream in) {
        this.out = out;
        this.in = in;
    }

    int run(HttpClient http, String baseUrl, String token, String computer, String workspace, List<String> command)
            throws Exception {
        String saved = stty("-g");
        int[] size = size();
        var uri = URI.create(baseUrl.replaceFirst("^http", "ws") + "/computers/" + computer + "/exec?workspace=" + workspace);
        WebSocket ws;
        try {
            ws = http.newWebSocketBuilder().header("Authorization", "Bearer " + token)
                    .buildAsync(uri, new Listener()).join();
        } catch (CompletionException e) {
            throw Trust.unreachable(baseUrl, e.getCause());
        }
        try {
            if (saved != null) {
                stty("raw", "-echo");
            }
            ws.sendText(JsonTrees.text(Map.of("command", command, "cols", size[0], "rows", size[1])), true).join();
            Thread.ofPlatform().daemon().start(() -> pumpInput(ws));
            Thread.ofPlatform().daemon().start(() -> followSize(ws, size));
            return exit.get();
        } finally {
            if (saved != null) {
                stty(saved);
            }
            ws.abort();
        }
    }

    private void pumpInput(WebSocket ws) {
        byte[] buffer = new byte[4096];
        try {
            for (int n = in.read(buffer); n >= 0 && !exit.isDone(); n = in.read(buffer)) {
                ws.sendBinary(ByteBuffer.wrap(buffer, 0, n).asReadOnlyBuffer(), true).join();
            }
        } catch (IOException | RuntimeException ignored) {
            // the session is over
        }
    }

    /** Java cannot catch SIGWINCH: look at the size twice a second and send changes. */
    private void followSize(WebSocket ws, int[] last) {
        while (!exit.isDone()) {
            try {
                Thread.sleep(500);
                int[] now = size();
                if (now[0] != last[0] || now[1] != last[1]) {
                    ws.sendText("{\"resize\": {\"cols\": " + now[0] + ", \"rows\": " + now[1] + "}}", true).join();
                    last = now;
                }
            } catch (InterruptedException | RuntimeException e) {
                return;
            }
        }
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            out.write(bytes, 0, bytes.length);
            out.flush();
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                try {
                    var message = JsonTrees.read(text.toString());
                    if (message.has("exit_code")) {
                        exit.complete(message.path("exit_code").asInt());
                    } else if (message.has("error")) {
                        System.err.println("\r\nerror: " + message.path("error").path("message").asText());
                        exit.complete(1);
                    }
                } catch (IOException e) {
                    exit.complete(1);
                }
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
            exit.complete(status == 1000 ? 0 : 1);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            exit.completeExceptionally(error);
        }
    }

    /** {cols, rows} of the controlling terminal, or 80x24 without one. */
    private static int[] size() {
        String s = stty("size");
        if (s != null && s.matches("\\d+ \\d+")) {
            String[] parts = s.split(" ");
            return new int[] {Integer.parseInt(parts[1]), Integer.parseInt(parts[0])};
        }
        return new int[] {80, 24};
    }

    /** Runs stty on /dev/tty; null where there is no terminal. */
    private static String stty(String... args) {
        try {
            var command = new ArrayList<>(List.of("stty"));
            command.addAll(List.of(args));
            var p = new ProcessBuilder(command).redirectInput(new File("/dev/tty")).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 ? output : null;
        } catch (IOException | InterruptedException e) {
            return null;
        }
    }
}
