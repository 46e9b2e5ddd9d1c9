package dev.hearth.server.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Output frames reach the caller as the agent sends them, not when the next one comes. */
@Tag("unit")
class FramesTest {
    @Test
    void eachFrameIsDeliveredBeforeTheNextIsSent() throws Exception {
        var firstSeen = new CountDownLatch(1);
        var order = new ArrayList<String>();
        try (var agent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            var server = Thread.ofVirtual().start(() -> serve(agent, firstSeen, order));
            var client = new HttpClient();
            client.start();
            try {
                var listener = new InputStreamResponseListener();
                client.newRequest("http://127.0.0.1:" + agent.getLocalPort() + "/exec").send(listener);
                listener.get(10, TimeUnit.SECONDS);
                var exit = Frames.read(listener.getInputStream(), (stderr, bytes) -> {
                    synchronized (order) {
                        order.add("got " + new String(bytes, StandardCharsets.UTF_8).strip());
                    }
                    firstSeen.countDown();
                }, true);
                assertEquals(0, exit.orElseThrow().path("exit_code").asInt());
            } finally {
                client.stop();
            }
            server.join();
        }
        assertTrue(order.indexOf("got one") >= 0 && order.indexOf("got one") < order.indexOf("sent two"),
                "the first frame waited for the second: " + order);
    }

    /** A chunked answer: frame one, then (once the client has it, or after 10 s) frame two and the exit. */
    private static void serve(ServerSocket agent, CountDownLatch firstSeen, List<String> order) {
        try (var socket = agent.accept(); var out = socket.getOutputStream()) {
            socket.getInputStream().read(new byte[8192]);
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/x-hearth-frames\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            chunk(out, frame('o', "one\n"));
            firstSeen.await(10, TimeUnit.SECONDS);
            synchronized (order) {
                order.add("sent two");
            }
            chunk(out, frame('o', "two\n"));
            chunk(out, frame('x', "{\"exit_code\":0}"));
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] frame(char kind, String payload) {
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + bytes.length).put((byte) kind).putInt(bytes.length).put(bytes).array();
    }

    private static void chunk(OutputStream out, byte[] data) throws Exception {
        out.write((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(data);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }
}
