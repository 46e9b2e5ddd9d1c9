package dev.hearth.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code hearth cp SOURCE TARGET}: copies a file or a directory into a computer or out of one, one
 * side written {@code COMPUTER:/path}. Directories travel as a tar (the local side uses tar(1)).
 */
@Command(name = "cp", description = {"Copy files and directories into a computer or out of it.",
        "  hearth cp ./app.tar.gz box:/data/app.tar.gz    hearth cp box:/data/out ./out"})
final class CpCommand implements Callable<Integer> {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Parameters(index = "0", paramLabel = "SOURCE", description = "a local path, or COMPUTER:/path")
    String source;

    @Parameters(index = "1", paramLabel = "TARGET", description = "a local path, or COMPUTER:/path")
    String target;

    /** One side of a copy: a computer and a path in it, or null computer for a local path. */
    record Place(String computer, String path) {
        static Place of(String text) {
            int colon = text.indexOf(':');
            boolean remote = colon > 0 && !text.substring(0, colon).contains("/");
            return remote ? new Place(text.substring(0, colon), text.substring(colon + 1)) : new Place(null, text);
        }
    }

    @Override
    public Integer call() throws Exception {
        var from = Place.of(source);
        var to = Place.of(target);
        if ((from.computer() == null) == (to.computer() == null)) {
            throw new IllegalArgumentException("one side must be COMPUTER:/path and the other a local path");
        }
        if (from.computer() == null) {
            upload(Path.of(from.path()), to);
        } else {
            download(from, Path.of(to.path()));
        }
        return 0;
    }

    private void upload(Path local, Place to) throws Exception {
        if (!Files.exists(local)) {
            throw new IllegalArgumentException(local + ": no such file or directory");
        }
        String remote = to.path().endsWith("/") ? to.path() + local.getFileName() : to.path();
        var client = cli.client();
        if (Files.isDirectory(local)) {
            var tar = new ProcessBuilder("tar", "-C", local.toString(), "-cf", "-", ".").start();
            client.upload(route(to.computer(), "/archive", remote), "application/x-tar", tar::getInputStream);
            requireSuccess(tar, "tar -c");
            return;
        }
        long size = Files.size(local);
        client.upload(route(to.computer(), "", remote), "application/octet-stream", () -> {
            try {
                return progress(Files.newInputStream(local), size);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private void download(Place from, Path local) throws Exception {
        var client = cli.client();
        var info = client.get(route(from.computer(), "/info", from.path())).path("file");
        Path into = Files.isDirectory(local) ? local.resolve(info.path("name").asText()) : local;
        if (info.path("type").asText().equals("dir")) {
            Files.createDirectories(into);
            var tar = new ProcessBuilder("tar", "-C", into.toString(), "-xf", "-").inheritIO()
                    .redirectInput(ProcessBuilder.Redirect.PIPE).start();
            try (var in = client.download(route(from.computer(), "/archive", from.path()));
                 OutputStream out = tar.getOutputStream()) {
                in.transferTo(out);
            }
            requireSuccess(tar, "tar -x");
            return;
        }
        try (var in = progress(client.download(route(from.computer(), "", from.path())), info.path("size").asLong());
             var out = Files.newOutputStream(into)) {
            in.transferTo(out);
        }
    }

    private String route(String computer, String suffix, String path) {
        return "/computers/" + computer + "/files" + suffix + "?path=" + URLEncoder.encode(path, StandardCharsets.UTF_8)
                + "&workspace=" + URLEncoder.encode(workspace.required(), StandardCharsets.UTF_8);
    }

    private static void requireSuccess(Process tar, String what) throws InterruptedException {
        if (tar.waitFor() != 0) {
            throw new IllegalStateException(what + " failed (exit " + tar.exitValue() + ")");
        }
    }

    /** Shows how far a copy of more than 8 MiB has come, on a terminal only. */
    private InputStream progress(InputStream in, long size) {
        if (System.console() == null || size < (8 << 20)) {
            return in;
        }
        return new Progress(in, size, cli.context.err());
    }

    private static final class Progress extends java.io.FilterInputStream {
        private final long size;
        private final PrintStream err;
        private long done;
        private long shownAt;

        Progress(InputStream in, long size, PrintStream err) {
            super(in);
            this.size = size;
            this.err = err;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                done += n;
                if (done - shownAt >= (1 << 20) || done == size) {
                    shownAt = done;
                    err.printf("\r%.1f / %.1f MiB  %d%%", done / 1048576.0, size / 1048576.0, 100 * done / size);
                }
            } else if (n < 0) {
                err.println();
            }
            return n;
        }
    }
}
