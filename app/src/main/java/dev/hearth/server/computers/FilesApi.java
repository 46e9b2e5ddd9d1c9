package dev.hearth.server.computers;

import static dev.hearth.server.tenancy.Action.COMPUTER_READ;
import static dev.hearth.server.tenancy.Action.COMPUTER_WRITE;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.computers.FileInfo;
import dev.hearth.api.computers.MakeDirectory;
import dev.hearth.api.computers.MoveFile;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** HTTP routes of a computer's files: translation only. Viewers read, editors and admins write. */
public final class FilesApi {
    // Past it the connection is closed instead, as Jetty does with a body left unread.
    private static final long DRAIN_LIMIT = 1L << 30;
    /** A file's metadata comes as {@code X-Metadata-KEY: VALUE} headers, as E2B's envd takes it. */
    private static final String METADATA = "X-Metadata-";
    private final ComputerFiles files;

    private FilesApi(ComputerFiles files) {
        this.files = files;
    }

    public static void register(RouteTable routes, ComputerFiles files, ComputerStore store) {
        new FilesApi(files).routes(routes, store::workspaceOf);
    }

    private void routes(RouteTable routes, Scope.Locator locator) {
        var read = Scope.resource("cmp", "computer", locator, COMPUTER_READ);
        var write = Scope.resource("cmp", "computer", locator, COMPUTER_WRITE);
        String base = "/computers/{cmp}/files";
        routes.add("GET", base, read, this::read)
                .summary("A file's bytes").query("path", "string", "absolute path in the computer")
                .answers(new Contract.Answer.Bytes("application/octet-stream"));
        routes.streaming("PUT", base, write, this::write)
                .summary("Write a file (any size, streamed)").query("path", "string", "absolute path in the computer")
                .query("mode", "string", "octal permissions, e.g. 0755")
                .query("owner", "string", "a user of the image who owns the file and the parents made (default root)")
                .takesBytes("application/octet-stream")
                .answers(Contract.one("file", FileInfo.class));
        routes.add("DELETE", base, write, this::delete)
                .summary("Delete a file or directory").query("path", "string", "absolute path in the computer")
                .query("recursive", "boolean", "delete a directory and what it holds").answers(Contract.one("file", FileInfo.class));
        routes.add("GET", base + "/info", read, this::info)
                .summary("What a path is").query("path", "string", "absolute path in the computer").answers(Contract.one("file", FileInfo.class));
        routes.add("GET", base + "/list", read, this::list)
                .summary("A directory's entries, by name").query("path", "string", "absolute path of a directory")
                .answers(Contract.all("files", FileInfo.class));
        routes.add("POST", base + "/move", write, this::move)
                .summary("Move or rename").takes(MoveFile.class).answers(Contract.one("file", FileInfo.class));
        routes.add("POST", base + "/mkdir", write, this::mkdir)
                .summary("Make a directory and its parents").takes(MakeDirectory.class).answers(Contract.one("file", FileInfo.class));
        routes.add("GET", base + "/watch", read, this::watch)
                .summary("What happens in a directory, as it happens: NDJSON lines until the client hangs up")
                .query("path", "string", "absolute path of a directory")
                .query("recursive", "boolean", "its subdirectories too, those made meanwhile included")
                .answers(new Contract.Answer.Lines(WATCH_LINES));
        routes.add("GET", base + "/archive", read, this::archive)
                .summary("A directory as a tar").query("path", "string", "absolute path of a directory")
                .answers(new Contract.Answer.Bytes("application/x-tar"));
        routes.streaming("PUT", base + "/archive", write, this::unarchive)
                .summary("Unpack a tar into a directory (made if missing)")
                .query("path", "string", "absolute path of a directory").takesBytes("application/x-tar").answers(Contract.one("file", FileInfo.class));
    }

    private Reply read(Exchange ex) {
        return raw("application/octet-stream", files.read(ex.workspace(), ex.param("cmp"), path(ex)));
    }

    private Reply write(Exchange ex) {
        return file(drainedIfRefused(ex.bodyStream(), body -> files.write(ex.workspace(), ex.param("cmp"), path(ex),
                ex.query("mode").orElse(null), ex.query("owner").orElse(null), ex.headersStartingWith(METADATA), body)));
    }

    private Reply delete(Exchange ex) {
        return file(files.delete(ex.workspace(), ex.param("cmp"), path(ex),
                ex.query("recursive").map(FilesApi::flag).orElse(false)));
    }

    private Reply info(Exchange ex) {
        return file(files.info(ex.workspace(), ex.param("cmp"), path(ex)));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Map.of("files", files.list(ex.workspace(), ex.param("cmp"), path(ex))));
    }

    private Reply move(Exchange ex) {
        var move = ex.body(MoveFile.class);
        return file(files.move(ex.workspace(), ex.param("cmp"), move.from(), move.to()));
    }

    private Reply mkdir(Exchange ex) {
        var mkdir = ex.body(MakeDirectory.class);
        return file(files.mkdir(ex.workspace(), ex.param("cmp"), mkdir.path(), mkdir.owner()));
    }

    private Reply watch(Exchange ex) {
        var events = files.watch(ex.workspace(), ex.param("cmp"), path(ex),
                ex.query("recursive").map(FilesApi::flag).orElse(false));
        return Reply.stream("application/x-ndjson", events::transferTo);
    }

    private Reply archive(Exchange ex) {
        return raw("application/x-tar", files.archive(ex.workspace(), ex.param("cmp"), path(ex)));
    }

    private Reply unarchive(Exchange ex) {
        return file(drainedIfRefused(ex.bodyStream(), body -> files.unarchive(ex.workspace(), ex.param("cmp"),
                path(ex), body)));
    }

    /** The lines of a watch: first {@code {watching}}, then one an event. */
    private static final Contract.Shape WATCH_LINES = new Contract.Shape.OneOf(List.of(
            Contract.fields("watching", Contract.of(String.class)),
            Contract.fields("name", Contract.of(String.class), "type", Contract.of(String.class),
                    "dir", Contract.of(Boolean.class)), new Contract.Shape.Error()));

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

    /**
     * An upload refused midway for want of space reads what the client still sends, up to
     * {@link #DRAIN_LIMIT}, before the refusal is answered: a client writes its whole body before it
     * reads, and one whose connection closed under it sees a reset, not the 507.
     */
    private static FileInfo drainedIfRefused(InputStream requestBody, Function<InputStream, FileInfo> upload) {
        var lent = new LentBody(requestBody);
        try {
            return upload.apply(lent);
        } catch (ApiException e) {
            if (e.status() != ErrorCode.INSUFFICIENT_STORAGE.status()) {
                throw e; // refused before its body was read: no waiting on a client that may never send it
            }
            var body = lent.takeBack();
            try {
                long left = DRAIN_LIMIT;
                byte[] buffer = new byte[64 << 10];
                for (int n = body.read(buffer); n > 0 && left > 0; n = body.read(buffer)) {
                    left -= n;
                }
            } catch (IOException gone) {
                // the client stopped sending: nothing to wait for
            }
            throw e;
        }
    }
}
