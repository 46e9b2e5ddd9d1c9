package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** envd's {@code filesystem.Filesystem} service on a computer's files API. */
final class EnvdFilesystem {
    private static final int MAX_DEPTH = 32;
    private final V1 v1;

    EnvdFilesystem(V1 v1) {
        this.v1 = v1;
    }

    /** {@code Stat}: the entry, or not_found. */
    JsonNode stat(EnvdCall call, JsonNode request) {
        var entry = E2bJson.object();
        entry.set("entry", entryOf(info(call, call.path(request.path("path").asText()))));
        return entry;
    }

    private JsonNode info(EnvdCall call, String path) {
        var answer = v1.get(call.computer("/files/info?path=" + Sandboxes.encode(path)), call.authorization());
        return checked(answer).path("file");
    }

    /** {@code ListDir}: a walk {@code depth} deep, sorted by path, paths absolute. */
    JsonNode list(EnvdCall call, JsonNode request) {
        int depth = request.path("depth").asInt(1);
        if (depth < 1 || depth > MAX_DEPTH) {
            throw new Connect.Failure("invalid_argument", "depth is 1 to " + MAX_DEPTH);
        }
        String root = call.path(request.path("path").asText());
        var dir = info(call, root);
        if (!dir.path("type").asText().equals("dir")) {
            throw new Connect.Failure("invalid_argument", "path " + root + " is not a directory");
        }
        var found = new ArrayList<JsonNode>();
        walk(call, root, depth, found);
        found.sort(Comparator.comparing(e -> e.path("path").asText()));
        var out = E2bJson.object();
        ArrayNode entries = out.putArray("entries");
        found.forEach(e -> entries.add(entryOf(e)));
        return out;
    }

    private void walk(EnvdCall call, String dir, int depth, List<JsonNode> found) {
        var answer = v1.get(call.computer("/files/list?path=" + Sandboxes.encode(dir)), call.authorization());
        for (var file : checked(answer).path("files")) {
            found.add(file);
            if (depth > 1 && file.path("type").asText().equals("dir")) {
                walk(call, file.path("path").asText(), depth - 1, found);
            }
        }
    }

    /** {@code MakeDir}: made, owned by the user; one there already is already_exists (the SDK's false). */
    JsonNode makeDir(EnvdCall call, JsonNode request) {
        String path = call.path(request.path("path").asText());
        var existing = v1.get(call.computer("/files/info?path=" + Sandboxes.encode(path)), call.authorization());
        if (existing.ok()) {
            throw new Connect.Failure("already_exists", path + " exists already");
        }
        var made = v1.json("POST", call.computer("/files/mkdir"), call.authorization(),
                Map.of("path", path, "owner", call.user()));
        var out = E2bJson.object();
        out.set("entry", entryOf(checked(made).path("file")));
        return out;
    }

    /** {@code Move}. */
    JsonNode move(EnvdCall call, JsonNode request) {
        var moved = v1.json("POST", call.computer("/files/move"), call.authorization(), Map.of(
                "from", call.path(request.path("source").asText()), "to", call.path(request.path("destination").asText())));
        var out = E2bJson.object();
        out.set("entry", entryOf(checked(moved).path("file")));
        return out;
    }

    /** {@code Remove}: a file, or a directory with what it holds. */
    JsonNode remove(EnvdCall call, JsonNode request) {
        String path = call.path(request.path("path").asText());
        var answer = v1.json("DELETE", call.computer("/files?recursive=true&path=" + Sandboxes.encode(path)),
                call.authorization(), null);
        if (answer.status() != 404) { // envd removes as os.RemoveAll does: nothing there is no error
            checked(answer);
        }
        return E2bJson.object();
    }

    /** {@code WatchDir}: {@code start}, then an event a change, names relative to the directory. */
    void watch(EnvdCall call, JsonNode request, Connect.Stream out) throws IOException {
        String path = call.path(request.path("path").asText());
        boolean recursive = request.path("recursive").asBoolean(false);
        // allowNetworkMounts needs nothing: inotify works on every file system a computer has.
        boolean withEntry = request.path("includeEntry").asBoolean(false);
        var stream = v1.follow(call.computer("/files/watch?recursive=" + recursive + "&path="
                + Sandboxes.encode(path)), call.authorization());
        if (stream.status() != 200) {
            try (stream) {
                var failure = new V1.Answer(stream.status(), E2bJson.MAPPER.readTree(stream.body())).failure();
                out.end(stream.status() == 404 ? new Connect.Failure("not_found", failure.getMessage())
                        : Connect.of(failure));
                return;
            }
        }
        try (stream; var lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                var event = E2bJson.MAPPER.readTree(line);
                if (event.has("watching")) {
                    var start = E2bJson.object();
                    start.putObject("start");
                    out.send(start);
                    continue;
                }
                var message = E2bJson.object();
                var fs = message.putObject("filesystem");
                fs.put("name", event.path("name").asText());
                fs.put("type", "EVENT_TYPE_" + event.path("type").asText().toUpperCase(Locale.ROOT));
                if (withEntry) {
                    entryAt(call, path + "/" + event.path("name").asText()).ifPresent(e -> fs.set("entry", e));
                }
                out.send(message);
            }
            out.end(null);
        } catch (IOException e) {
            stream.abort();
            throw e;
        }
    }

    /** The entry at {@code path} now, if it is there still (as envd, best effort: it may be gone already). */
    private Optional<ObjectNode> entryAt(EnvdCall call, String path) {
        var answer = v1.get(call.computer("/files/info?path=" + Sandboxes.encode(path)), call.authorization());
        return answer.ok() ? Optional.of(entryOf(answer.body().path("file"))) : Optional.empty();
    }

    private static JsonNode checked(V1.Answer answer) {
        if (answer.status() == 404) {
            throw new Connect.Failure("not_found", answer.failure().getMessage());
        }
        if (!answer.ok()) {
            throw Connect.of(answer.failure());
        }
        return answer.body();
    }

    /** Hearth's file object as envd's EntryInfo. */
    static ObjectNode entryOf(JsonNode file) {
        var entry = E2bJson.object();
        entry.put("name", file.path("name").asText());
        String type = file.path("type").asText();
        entry.put("type", switch (type) {
            case "file" -> "FILE_TYPE_FILE";
            case "dir" -> "FILE_TYPE_DIRECTORY";
            case "symlink" -> "FILE_TYPE_SYMLINK";
            default -> "FILE_TYPE_UNSPECIFIED";
        });
        entry.put("path", file.path("path").asText());
        entry.put("size", Long.toString(file.path("size").asLong()));
        int perm = Integer.parseInt(file.path("mode").asText("0").replaceFirst("^0+(?=.)", ""), 8);
        entry.put("mode", perm); // envd's is the permission bits alone (Go's Mode().Perm())
        entry.put("permissions", file.path("permissions").asText());
        entry.put("owner", file.path("owner").asText());
        entry.put("group", file.path("group").asText());
        entry.put("modifiedTime", Instant.parse(file.path("modified_at").asText()).toString());
        if (file.path("symlink_target").isTextual()) { // envd names it absolute, resolved from the link's directory
            var link = Path.of(file.path("path").asText());
            var target = link.resolveSibling(file.path("symlink_target").asText()).normalize();
            entry.put("symlinkTarget", target.toString());
        }
        if (!file.path("metadata").isEmpty()) {
            entry.set("metadata", file.path("metadata"));
        }
        return entry;
    }
}
