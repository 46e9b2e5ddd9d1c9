package dev.hearth.server.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Serves the web console: {@code /} is its page, {@code /console/NAME} its bundled files (named
 * by their hash, so cached for good), from the classpath where the build put them. Every answer
 * forbids framing and any script not served from here; the page itself is never cached, so a new
 * build is picked up on the next load. Anything else goes on to the API.
 */
public final class ConsoleHandler extends Handler.Abstract {
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            + "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
            + "form-action 'self'; frame-ancestors 'none'";
    private static final Pattern ASSET = Pattern.compile("/console/([A-Za-z0-9._-]{1,100})");
    private static final Map<String, String> TYPES = Map.of("js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "html", "text/html; charset=utf-8", "png", "image/png",
            "svg", "image/svg+xml", "map", "application/json");

    private record File(byte[] plain, byte[] gzip, String type) {
    }

    // Only files that exist are kept: a name asked for and missing is not, or made-up names would fill it.
    private final Map<String, File> files = new ConcurrentHashMap<>();

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = request.getHttpURI().getPath();
        String method = request.getMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            return false;
        }
        String name;
        if (path.equals("/") || path.equals("/index.html")) {
            name = "index.html";
        } else {
            var asset = ASSET.matcher(path);
            if (!asset.matches()) {
                return false;
            }
            name = asset.group(1);
        }
        var file = file(name);
        if (file.isEmpty()) {
            return false; // not built: the API answers 404 as for any unknown path
        }
        serve(request, response, callback, file.get(), name.equals("index.html"));
        return true;
    }

    private static void serve(Request request, Response response, Callback callback, File file, boolean page) {
        var headers = response.getHeaders();
        headers.put(HttpHeader.CONTENT_TYPE, file.type());
        headers.put("Content-Security-Policy", CSP);
        headers.put("X-Frame-Options", "DENY");
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("Referrer-Policy", "no-referrer");
        headers.put(HttpHeader.CACHE_CONTROL, page ? "no-cache" : "public, max-age=31536000, immutable");
        headers.put(HttpHeader.VARY, "Accept-Encoding");
        String accepts = request.getHeaders().get(HttpHeader.ACCEPT_ENCODING);
        byte[] body = file.plain();
        if (file.gzip() != null && accepts != null && accepts.contains("gzip")) {
            headers.put(HttpHeader.CONTENT_ENCODING, "gzip");
            body = file.gzip();
        }
        headers.put(HttpHeader.CONTENT_LENGTH, body.length);
        response.setStatus(200);
        response.write(true, request.getMethod().equals("HEAD") ? ByteBuffer.allocate(0) : ByteBuffer.wrap(body),
                callback);
    }

    private Optional<File> file(String name) {
        return Optional.ofNullable(files.computeIfAbsent(name, n -> read("console/" + n).map(plain -> new File(plain,
                read("console/" + n + ".gz").orElse(null), TYPES.getOrDefault(extension(n), "application/octet-stream")))
                .orElse(null)));
    }

    private static Optional<byte[]> read(String resource) {
        try (InputStream in = ConsoleHandler.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String extension(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1);
    }
}
