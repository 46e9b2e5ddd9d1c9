package dev.hearth.bench;

import dev.hearth.server.http.Route;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bad requests a careless or hostile client sends to one route, built from the route's method
 * and template alone so that a new route gets them all. Every case is wrong in some way the server
 * must refuse before it acts: where a case exists to test something other than the body (a header,
 * a path segment, a token), it carries {@link #SAFE}, a body with an unknown field, so that a server
 * that let the tested thing through still does nothing (a probe must never delete its own fixtures).
 */
final class ProbeCases {
    /** Whose token a probe carries; a bad token is spelled out in the probe's header lines. */
    enum Auth { ADMIN, VIEWER, NONE }

    /** One request: the case's name, the route it aims at, and the exact bytes to send. */
    record Probe(String kase, String method, String template, String target, Auth auth, List<String> headers,
                 byte[] body) {
    }

    static final String SAFE = "{\"zz_probe_unknown\": 1}";
    private static final Pattern PARAM = Pattern.compile("\\{([^}]+)}");
    private static final String JSON = "Content-Type: application/json";
    // A JWT with alg "none" and an admin-looking subject: must be refused like any other bad token.
    private static final String ALG_NONE = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJhZG1pbiJ9.";
    private static final List<String> BAD_SEGMENTS = List.of("%2F", "a%2Fb", "%", "%zz", "%00", "%C0%AF", "%2e%2e",
            "..", "x".repeat(65), "%E2%80%AE", "%FF", "a%20b", "%0d%0aX-Injected:%201");
    private static final List<String> BAD_QUERIES = List.of("limit=abc", "limit=0", "limit=1.5", "limit=-1",
            "limit=99999999999999999999", "limit=1&limit=2", "cursor=garbage", "cursor=" + "A".repeat(10_000),
            "%zz=1", "limit=%zz", "wait=abc", "wait=1e9", "wait=-1", "wait=99999999999999999999", "deleted=maybe",
            "state=bogus", "workspace=%2F", "workspace=" + "w".repeat(300));

    private final List<Probe> probes = new ArrayList<>();
    private final Route route;
    private final String method;
    private final boolean get;

    private ProbeCases(Route route) {
        this.route = route;
        this.method = route.method();
        this.get = method.equals("GET");
    }

    /** Every generic case for {@code route} with its path parameters filled from {@code ids}. */
    static List<Probe> of(Route route, Map<String, String> ids) {
        var cases = new ProbeCases(route);
        String path = "/v1" + fill(route.template(), ids);
        cases.who(path);
        cases.bodies(path);
        cases.mediaTypes(path);
        cases.headers(path);
        cases.framing(path);
        cases.segments(ids);
        cases.queries(path);
        cases.methods(path);
        return cases.probes;
    }

    static String fill(String template, Map<String, String> ids) {
        Matcher m = PARAM.matcher(template);
        var out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(ids.get(m.group(1))));
        }
        return m.appendTail(out).toString();
    }

    static List<String> params(String template) {
        return PARAM.matcher(template).results().map(r -> r.group(1)).toList();
    }

    private void who(String path) {
        byte[] safe = safe();
        List<String> json = get ? List.of() : List.of(JSON);
        add("no token", method, path, Auth.NONE, json, safe);
        add("garbage token", method, path, Auth.NONE, with(json, "Authorization: Bearer garbage"), safe);
        add("alg none token", method, path, Auth.NONE, with(json, "Authorization: Bearer " + ALG_NONE), safe);
        add("basic auth", method, path, Auth.NONE, with(json, "Authorization: Basic YWRtaW46YWRtaW4="), safe);
        add("empty bearer", method, path, Auth.NONE, with(json, "Authorization: Bearer"), safe);
        add("100 KB token", method, path, Auth.NONE, with(json, "Authorization: Bearer " + "a".repeat(100_000)), safe);
        add("viewer token", method, path, Auth.VIEWER, json, safe);
    }

    private void bodies(String path) {
        json("malformed JSON", path, "{\"name\": ");
        json("5000-deep arrays", path, "[".repeat(5000) + "]".repeat(5000));
        json("5000-deep objects", path, "{\"a\":".repeat(5000) + "1" + "}".repeat(5000));
        json("top-level array", path, "[]");
        json("top-level null", path, "null");
        json("top-level string", path, "\"x\"");
        json("top-level number", path, "1");
        json("duplicate keys", path, "{\"name\": \"a\", \"name\": \"b\"}");
        json("trailing data", path, "{} x");
        json("NaN literal", path, "{\"name\": NaN}");
        json("comment", path, "/* c */ {\"zz_probe_unknown\": 1}");
        json("unknown field", path, SAFE);
        json("huge string", path, "{\"name\": \"" + "x".repeat(600_000) + "\"}");
        json("body over 1 MiB", path, "{\"name\": \"" + "x".repeat(2 << 20) + "\"}");
        add("invalid UTF-8", method, path, Auth.ADMIN, keyed(List.of(JSON)),
                concat("{\"name\": \"".getBytes(StandardCharsets.US_ASCII), new byte[] {(byte) 0xff, (byte) 0xfe},
                        "\"}".getBytes(StandardCharsets.US_ASCII)));
    }

    private void mediaTypes(String path) {
        byte[] safe = SAFE.getBytes(StandardCharsets.UTF_8);
        add("application/jsonx", method, path, Auth.ADMIN, keyed(List.of("Content-Type: application/jsonx")), safe);
        add("charset=utf-16", method, path, Auth.ADMIN, keyed(List.of("Content-Type: application/json; charset=utf-16")),
                SAFE.getBytes(StandardCharsets.UTF_16));
        add("text/plain", method, path, Auth.ADMIN, keyed(List.of("Content-Type: text/plain")), safe);
        add("form body", method, path, Auth.ADMIN, keyed(List.of("Content-Type: application/x-www-form-urlencoded")),
                "zz_probe_unknown=1&name=%zz".getBytes(StandardCharsets.US_ASCII));
        add("no content type", method, path, Auth.ADMIN, keyed(List.of()), safe);
        add("two content types", method, path, Auth.ADMIN, keyed(List.of(JSON, "Content-Type: text/plain")), safe);
    }

    private void headers(String path) {
        byte[] safe = safe();
        List<String> json = get ? List.of() : List.of(JSON);
        add("100 KB Idempotency-Key", method, path, Auth.ADMIN, with(json, "Idempotency-Key: " + "k".repeat(100_000)), safe);
        add("256-char Idempotency-Key", method, path, Auth.ADMIN, with(json, "Idempotency-Key: " + "k".repeat(256)), safe);
        add("empty Idempotency-Key", method, path, Auth.ADMIN, with(json, "Idempotency-Key:"), safe);
        add("two Idempotency-Keys", method, path, Auth.ADMIN, with(with(json, "Idempotency-Key: a"),
                "Idempotency-Key: b"), safe);
        add("control char in header", method, path, Auth.ADMIN, with(json, "X-Probe: a\u0001b"), safe);
        add("non-ASCII Idempotency-Key", method, path, Auth.ADMIN, with(json, "Idempotency-Key: k\u00e9\u00ff"), safe);
        add("100 headers of 1 KB", method, path, Auth.ADMIN, manyHeaders(json), safe);
        if (route.keyRequired()) {
            add("create without Idempotency-Key", method, path, Auth.ADMIN, List.of(JSON), safe);
        }
    }

    private void framing(String path) {
        byte[] safe = SAFE.getBytes(StandardCharsets.UTF_8);
        add("Content-Length and chunked", method, path, Auth.ADMIN, keyed(List.of(JSON, "Content-Length: 5",
                "Transfer-Encoding: chunked")), chunked(safe));
        add("bad chunk size", method, path, Auth.ADMIN, keyed(List.of(JSON, "Transfer-Encoding: chunked")),
                "zz\r\nabc\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        add("Content-Length -1", method, path, Auth.ADMIN, keyed(List.of(JSON, "Content-Length: -1")), safe);
        add("Content-Length abc", method, path, Auth.ADMIN, keyed(List.of(JSON, "Content-Length: abc")), safe);
        add("two Content-Lengths", method, path, Auth.ADMIN, keyed(List.of(JSON,
                "Content-Length: " + safe.length, "Content-Length: 1")), safe);
    }

    /** Each path parameter in turn replaced by a bad segment, the others kept; then slashes around the path. */
    private void segments(Map<String, String> ids) {
        for (String param : params(route.template())) {
            for (String bad : BAD_SEGMENTS) {
                var changed = new HashMap<>(ids);
                changed.put(param, bad);
                add("{" + param + "} = " + abbreviate(bad), method, "/v1" + fill(route.template(), changed), Auth.ADMIN,
                        keyed(get ? List.of() : List.of(JSON)), safe());
            }
        }
        String path = fill(route.template(), ids);
        for (String shape : List.of("/v1/" + path, "/v1" + path + "/", "/v1" + path + "%2F", "/v1" + path + "/%zz",
                "/v1" + path.replace("/", "/./"), "/v1" + path + "/..", "/v1%2F" + path.substring(1))) {
            add("path shape", method, shape, Auth.ADMIN, keyed(get ? List.of() : List.of(JSON)), safe());
        }
    }

    private void queries(String path) {
        if (!get) {
            return;
        }
        for (String query : BAD_QUERIES) {
            add("?" + abbreviate(query), method, path + "?" + query, Auth.ADMIN, List.of(), null);
        }
    }

    private void methods(String path) {
        for (String other : List.of("PUT", "OPTIONS", "TRACE", "PROBE", "get")) {
            add("method " + other, other, path, Auth.ADMIN, List.of(), null);
        }
    }

    private void json(String kase, String path, String body) {
        add(kase, method, path, Auth.ADMIN, keyed(List.of(JSON)), body.getBytes(StandardCharsets.UTF_8));
    }

    private void add(String kase, String m, String target, Auth auth, List<String> headers, byte[] body) {
        probes.add(new Probe(kase, m, route.template(), target, auth, headers, body));
    }

    /** No body for GET (its own case sends one); {@link #SAFE} for everything else. */
    private byte[] safe() {
        return get ? null : SAFE.getBytes(StandardCharsets.UTF_8);
    }

    /** A create refuses a request without a key before it reads the body: a fresh key lets the body be judged. */
    private List<String> keyed(List<String> headers) {
        return route.keyRequired() ? with(headers, "Idempotency-Key: probe-" + UUID.randomUUID()) : headers;
    }

    private static List<String> with(List<String> headers, String line) {
        var all = new ArrayList<>(headers);
        all.add(line);
        return all;
    }

    private static List<String> manyHeaders(List<String> base) {
        var all = new ArrayList<>(base);
        for (int i = 0; i < 100; i++) {
            all.add("X-Probe-" + i + ": " + "v".repeat(1024));
        }
        return all;
    }

    private static byte[] chunked(byte[] body) {
        return concat((Integer.toHexString(body.length) + "\r\n").getBytes(StandardCharsets.US_ASCII), body,
                "\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] concat(byte[]... parts) {
        var out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 20) + "…(" + s.length() + " chars)";
    }
}
