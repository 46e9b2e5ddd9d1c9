package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.MultiPart;
import org.eclipse.jetty.http.MultiPartConfig;
import org.eclipse.jetty.http.MultiPartFormData;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * envd's {@code /files}: a file's bytes down ({@code GET}), and up ({@code POST}) as multipart parts
 * whose file names are their paths, or as the raw body (gzip too) with {@code ?path=}. Uploads are
 * owned by the user. Errors answer E2B's {@code {"code", "message"}}.
 */
final class EnvdFiles {
    private final V1 v1;
    private final Path spool;

    /** {@code spool}: where large multipart parts wait while they are read (Jetty's parser writes them there). */
    EnvdFiles(V1 v1, Path spool) {
        this.v1 = v1;
        this.spool = spool;
    }

    void download(EnvdCall call, String path, Response response, Callback callback) throws IOException {
        var stream = v1.open(v1.request("GET", call.computer("/files?path=" + Sandboxes.encode(call.path(path))),
                call.authorization()));
        try (stream) {
            if (stream.status() != 200) {
                var failure = new V1.Answer(stream.status(), E2bJson.MAPPER.readTree(stream.body())).failure();
                E2bReply.error(response, callback, failure.status(), failure.getMessage());
                return;
            }
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/octet-stream");
            if (stream.length() >= 0) {
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, stream.length());
            }
            try (OutputStream out = Content.Sink.asOutputStream(response)) {
                stream.body().transferTo(out);
            }
            callback.succeeded();
        }
    }

    void upload(EnvdCall call, String path, Request request, Response response, Callback callback) throws IOException {
        String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        var metadata = metadata(request);
        ArrayNode written = E2bJson.NODES.arrayNode();
        if (type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith("multipart/form-data")) {
            Files.createDirectories(spool);
            var config = new MultiPartConfig.Builder().location(spool).maxMemoryPartSize(1 << 20).maxParts(1000)
                    .maxPartSize(-1).maxSize(-1).build();
            try (var parts = MultiPartFormData.getParts(request, request, type, config)) {
                for (MultiPart.Part part : parts) {
                    String target = path != null && parts.size() == 1 ? path : part.getFileName();
                    if (target == null || target.isEmpty()) {
                        throw new E2bException(400, "a part has no file name and no path was given");
                    }
                    try (var in = Content.Source.asInputStream(part.getContentSource())) {
                        written.add(put(call, target, metadata, in));
                    }
                }
            }
        } else {
            if (path == null || path.isEmpty()) {
                throw new E2bException(400, "an upload of raw bytes names its file with ?path=");
            }
            InputStream raw = Content.Source.asInputStream(request);
            boolean gzip = "gzip".equalsIgnoreCase(request.getHeaders().get(HttpHeader.CONTENT_ENCODING));
            try (InputStream in = gzip ? new GZIPInputStream(raw, 64 * 1024) : raw) {
                written.add(put(call, path, metadata, in));
            }
        }
        E2bReply.json(response, callback, 200, written);
    }

    /** The request's X-Metadata-* headers, passed on as they came (one upload's files all get them). */
    private static Map<String, String> metadata(Request request) {
        var metadata = new LinkedHashMap<String, String>();
        for (var field : request.getHeaders()) {
            if (field.getName().regionMatches(true, 0, METADATA, 0, METADATA.length())) {
                metadata.put(field.getName(), field.getValue());
            }
        }
        return metadata;
    }

    /** Writes one file as the user; answers envd's entry for it. */
    private ObjectNode put(EnvdCall call, String given, Map<String, String> metadata, InputStream body) {
        String path = call.path(given);
        var answer = v1.upload("PUT", call.computer("/files?path=" + Sandboxes.encode(path) + "&owner="
                + Sandboxes.encode(call.user())), call.authorization(), metadata, body);
        var file = answer.orThrow().path("file");
        var entry = E2bJson.object();
        entry.put("path", file.path("path").asText());
        entry.put("name", file.path("name").asText());
        entry.put("type", "file");
        if (!file.path("metadata").isEmpty()) {
            entry.set("metadata", file.path("metadata"));
        }
        return entry;
    }

    private static final String METADATA = "X-Metadata-";
}
