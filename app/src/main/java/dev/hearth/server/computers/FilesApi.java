package dev.hearth.server.computers;

import static dev.hearth.server.tenancy.Action.COMPUTER_READ;
import static dev.hearth.server.tenancy.Action.COMPUTER_WRITE;

import dev.hearth.api.ApiException;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.util.Map;

/** HTTP routes of a computer's files: translation only. Viewers read, editors and admins write. */
public final class FilesApi {
    private FilesApi() {
    }

    /** {@code POST .../files/move}. */
    record MoveRequest(String from, String to) {
    }

    /** {@code POST .../files/mkdir}. */
    record MkdirRequest(String path) {
    }

    public static void register(RouteTable routes, ComputerFiles files, ComputerStore store) {
        Scope.Locator locator = store::workspaceOf;
        var read = Scope.resource("cmp", "computer", locator, COMPUTER_READ);
        var write = Scope.resource("cmp", "computer", locator, COMPUTER_WRITE);
        String base = "/computers/{cmp}/files";
        routes.add("GET", base, read, ex -> {
            var download = files.read(ex.workspace(), ex.param("cmp"), path(ex));
            return raw("application/octet-stream", download);
        });
        routes.streaming("PUT", base, write, ex -> file(files.write(ex.workspace(), ex.param("cmp"), path(ex),
                ex.query("mode").orElse(null), ex.bodyStream())));
        routes.add("DELETE", base, write, ex -> file(files.delete(ex.workspace(), ex.param("cmp"), path(ex),
                ex.query("recursive").map(FilesApi::flag).orElse(false))));
        routes.add("GET", base + "/info", read, ex -> file(files.info(ex.workspace(), ex.param("cmp"), path(ex))));
        routes.add("GET", base + "/list", read,
                ex -> Reply.ok(Map.of("files", files.list(ex.workspace(), ex.param("cmp"), path(ex)))));
        routes.add("POST", base + "/move", write, ex -> {
            var move = ex.body(MoveRequest.class);
            return file(files.move(ex.workspace(), ex.param("cmp"), move.from(), move.to()));
        });
        routes.add("POST", base + "/mkdir", write,
                ex -> file(files.mkdir(ex.workspace(), ex.param("cmp"), ex.body(MkdirRequest.class).path())));
        routes.add("GET", base + "/archive", read,
                ex -> raw("application/x-tar", files.archive(ex.workspace(), ex.param("cmp"), path(ex))));
        routes.streaming("PUT", base + "/archive", write,
                ex -> file(files.unarchive(ex.workspace(), ex.param("cmp"), path(ex), ex.bodyStream())));
    }

    private static String path(Exchange ex) {
        return ex.query("path").orElseThrow(() -> ApiException.invalidField("path", "required (a query parameter)"));
    }

    private static boolean flag(String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ApiException.invalidField("recursive", "true or false");
        };
    }

    private static Reply file(Object info) {
        return Reply.ok(Reply.one("file", info));
    }

    private static Reply raw(String type, ComputerFiles.Download download) {
        var reply = Reply.stream(type, download::transferTo);
        return download.length() >= 0 ? reply.header("Content-Length", Long.toString(download.length())) : reply;
    }
}
