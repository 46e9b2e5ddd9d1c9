package dev.hearth.server.agent;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.hearth.api.Json;
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

    /** Writes {@code body} whole under {@code path} (parents made) or leaves nothing there. */
    public FileInfo write(AgentEndpoint agent, String path, String mode, InputStream body) {
        var request = client.request(agent, "PUT", "/files").param("path", path);
        if (mode != null) {
            request.param("mode", mode);
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

    public FileInfo mkdir(AgentEndpoint agent, String path) {
        return file(agent, AgentClient.jsonBody(client.request(agent, "POST", "/files/mkdir"), Map.of("path", path)));
    }

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
