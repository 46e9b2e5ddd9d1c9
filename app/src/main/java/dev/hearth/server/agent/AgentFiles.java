package dev.hearth.server.agent;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.hearth.api.Json;
import dev.hearth.api.computers.FileInfo;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.eclipse.jetty.client.Request;

/** Files in a computer, through its agent: bytes streamed both ways, never held whole. */
public final class AgentFiles {
    // A transfer may be large; it has as long as it keeps moving (the client's idle timeout).
    private static final long TRANSFER_MILLIS = TimeUnit.HOURS.toMillis(6);
    // Jetty's default of 4 KiB a read made uploads a fifth as fast as downloads.
    private static final int CHUNK = 128 * 1024;
    private static final TypeReference<List<FileInfo>> LIST = new TypeReference<>() {
    };

    private final AgentClient client;

    public AgentFiles(AgentClient client) {
        this.client = client;
    }

    public FileInfo info(AgentEndpoint agent, String path) {
        return file(agent, client.request(agent, "GET", "/files/info").param("path", path));
    }

    public List<FileInfo> list(AgentEndpoint agent, String dir) {
        var node = client.json(agent, client.request(agent, "GET", "/files/list").param("path", dir));
        return Json.mapper().convertValue(node, LIST);
    }

    /** The file's bytes; the caller closes the answer. */
    public AgentClient.Answer read(AgentEndpoint agent, String path) {
        return client.open(agent, transfer(client.request(agent, "GET", "/files").param("path", path)));
    }

    /**
     * Writes {@code body} whole under {@code path} (parents made) or leaves nothing there; {@code owner}
     * (null: root) owns the file and the parents it made.
     */
    /** What to write where: mode bits and owner (null: 0644 and root) and metadata (none: empty). */
    public record Upload(String path, String mode, String owner, Map<String, String> metadata) {
    }

    public FileInfo write(AgentEndpoint agent, Upload upload, InputStream body) {
        var request = client.request(agent, "PUT", "/files").param("path", upload.path());
        if (upload.mode() != null) {
            request.param("mode", upload.mode());
        }
        if (upload.owner() != null) {
            request.param("owner", upload.owner());
        }
        if (!upload.metadata().isEmpty()) {
            request.param("meta", Json.mapper().valueToTree(upload.metadata()).toString());
        }
        return file(agent, transfer(request.body(new InputStreamRequestContent("application/octet-stream", filled(body), CHUNK))));
    }

    public FileInfo delete(AgentEndpoint agent, String path, boolean recursive) {
        return file(agent, client.request(agent, "DELETE", "/files").param("path", path)
                .param("recursive", Boolean.toString(recursive)));
    }

    public FileInfo move(AgentEndpoint agent, String from, String to) {
        return file(agent, AgentClient.jsonBody(client.request(agent, "POST", "/files/move"),
                Map.of("from", from, "to", to)));
    }

    public FileInfo mkdir(AgentEndpoint agent, String path, String owner) {
        var request = client.request(agent, "POST", "/files/mkdir");
        if (owner != null) {
            request.param("owner", owner);
        }
        return file(agent, AgentClient.jsonBody(request, Map.of("path", path)));
    }

    /**
     * What happens in a directory as it happens, one JSON line an event (the first says it watches),
     * until the caller closes the answer or {@code abort} ends it from elsewhere.
     */
    public Watch watch(AgentEndpoint agent, String dir, boolean recursive) {
        var request = client.request(agent, "GET", "/watch").param("path", dir)
                .param("recursive", Boolean.toString(recursive))
                .timeout(FOLLOW_MILLIS, TimeUnit.MILLISECONDS).idleTimeout(FOLLOW_MILLIS, TimeUnit.MILLISECONDS);
        return new Watch(client.open(agent, request), () -> request.abort(new IOException("the computer stops")));
    }

    /** A watch's stream of events, and how to end it. */
    public record Watch(AgentClient.Answer answer, Runnable abort) {
    }

    /**
     * Makes a server listening on 127.0.0.1:{@code port} inside the computer reachable at its own
     * address ({@code address}); false when nothing listens there.
     */
    public boolean forward(AgentEndpoint agent, int port, String address) {
        try {
            client.json(agent, client.request(agent, "POST", "/forward").param("port", Integer.toString(port))
                    .param("address", address));
            return true;
        } catch (AgentException e) {
            if ("not_found".equals(e.code())) {
                return false;
            }
            throw e;
        }
    }

    // A watch may stay quiet as long as the directory does; it ends with its caller.
    private static final long FOLLOW_MILLIS = TimeUnit.DAYS.toMillis(30);

    /** A tar of the directory; the caller closes the answer. */
    public AgentClient.Answer archive(AgentEndpoint agent, String dir) {
        return client.open(agent, transfer(client.request(agent, "GET", "/files/archive").param("path", dir)));
    }

    /** Unpacks a tar into the directory (made if missing). */
    public FileInfo unarchive(AgentEndpoint agent, String dir, InputStream tar) {
        return file(agent, transfer(client.request(agent, "PUT", "/files/archive").param("path", dir)
                .body(new InputStreamRequestContent("application/x-tar", filled(tar), CHUNK))));
    }

    /**
     * Reads that fill the chunk: an upload arrives in network-sized pieces, and sending each on as
     * a chunk of its own cost three quarters of the throughput.
     */
    private static InputStream filled(InputStream in) {
        return new FilterInputStream(in) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = in.readNBytes(b, off, len);
                return n == 0 && len > 0 ? -1 : n;
            }
        };
    }

    private FileInfo file(AgentEndpoint agent, Request request) {
        return Json.mapper().convertValue(client.json(agent, request), FileInfo.class);
    }

    private static Request transfer(Request request) {
        return request.timeout(TRANSFER_MILLIS, TimeUnit.MILLISECONDS);
    }
}
