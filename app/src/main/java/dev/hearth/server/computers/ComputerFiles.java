package dev.hearth.server.computers;

import dev.hearth.api.computers.FileInfo;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.agent.AgentClient;
import dev.hearth.server.agent.AgentEndpoint;
import dev.hearth.server.agent.AgentException;
import dev.hearth.server.agent.AgentFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Files in computers, through their agents: paths checked first, then the computer woken if it
 * sleeps, and its gate held shared while the agent answers, so no sleep starts under a request.
 * A transfer counts as the computer serving a request, so auto-sleep waits for it.
 */
public final class ComputerFiles {
    private final Awake awake;
    private final Agents agents;
    private final Activity activity;

    ComputerFiles(Awake awake, Agents agents, Activity activity) {
        this.awake = awake;
        this.agents = agents;
        this.activity = activity;
    }

    /** Bytes on their way out of a computer (a file, a tar): written once, then closed. */
    public final class Download implements AutoCloseable {
        private final String computerId;
        private final AgentClient.Answer answer;
        private boolean closed;

        private Download(String computerId, AgentClient.Answer answer) {
            this.computerId = computerId;
            this.answer = answer;
        }

        /** The length, if the agent told it; -1 if not. */
        public long length() {
            return answer.length();
        }

        public void transferTo(OutputStream out) throws IOException {
            // Whole 128 KiB writes: the agent's bytes arrive in network-sized pieces, each of which
            // would otherwise be a write (and a chunk) of its own.
            byte[] buffer = new byte[128 * 1024];
            try (this) {
                for (int n = answer.body().readNBytes(buffer, 0, buffer.length); n > 0;
                     n = answer.body().readNBytes(buffer, 0, buffer.length)) {
                    out.write(buffer, 0, n);
                }
            }
        }

        @Override
        public void close() throws IOException {
            if (!closed) {
                closed = true;
                activity.requestEnds(computerId);
                answer.close();
            }
        }
    }

    /** A stream of events (a watch's lines): each passed on as it comes, until either side ends it. */
    public static final class Events implements AutoCloseable {
        private final AgentClient.Answer answer;
        private final Runnable untrack;

        private Events(AgentClient.Answer answer, Runnable untrack) {
            this.answer = answer;
            this.untrack = untrack;
        }

        public void transferTo(OutputStream out) throws IOException {
            byte[] buffer = new byte[16 * 1024];
            try (this) {
                for (int n = answer.body().read(buffer); n > 0; n = answer.body().read(buffer)) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        }

        @Override
        public void close() throws IOException {
            untrack.run();
            answer.close();
        }
    }

    public FileInfo info(Workspace workspace, String ref, String path) {
        String checked = FilePaths.check("path", path);
        return on(workspace, ref, agent -> agents.files().info(agent, checked));
    }

    public List<FileInfo> list(Workspace workspace, String ref, String dir) {
        String checked = FilePaths.check("path", dir);
        return on(workspace, ref, agent -> agents.files().list(agent, checked));
    }

    /** {@code owner}: a user of the image who owns the file and the parents made (null: root). */
    /** {@code metadata}: keys of HTTP token characters to printable ASCII values (E2B's file metadata). */
    public FileInfo write(Workspace workspace, String ref, String path, String mode, String owner,
                          Map<String, String> metadata, InputStream body) {
        var upload = new AgentFiles.Upload(FilePaths.check("path", path), FilePaths.mode(mode), Execs.user(owner),
                FilePaths.metadata(metadata));
        return on(workspace, ref, agent -> agents.files().write(agent, upload, body));
    }

    public FileInfo delete(Workspace workspace, String ref, String path, boolean recursive) {
        String checked = FilePaths.check("path", path);
        return on(workspace, ref, agent -> agents.files().delete(agent, checked, recursive));
    }

    public FileInfo move(Workspace workspace, String ref, String from, String to) {
        String source = FilePaths.check("from", from);
        String target = FilePaths.check("to", to);
        return on(workspace, ref, agent -> agents.files().move(agent, source, target));
    }

    public FileInfo mkdir(Workspace workspace, String ref, String path, String owner) {
        String checked = FilePaths.check("path", path);
        String who = Execs.user(owner);
        return on(workspace, ref, agent -> agents.files().mkdir(agent, checked, who));
    }

    /**
     * Opens a watch of a directory (a missing one fails here, before any byte is sent); a sleep of
     * the computer ends it, as it ends followers of output.
     */
    public Events watch(Workspace workspace, String ref, String dir, boolean recursive) {
        String checked = FilePaths.check("path", dir);
        return awake.run(awake.find(workspace, ref), c -> {
            var agent = agents.required(c);
            Runnable[] abort = {() -> { }};
            Runnable untrack = agents.follow(c.sandboxId(), () -> abort[0].run());
            try {
                var watch = agents.files().watch(agent, checked, recursive);
                abort[0] = watch.abort();
                return new Events(watch.answer(), untrack);
            } catch (AgentException e) {
                untrack.run();
                throw Agents.refusal(e);
            }
        });
    }

    public FileInfo unarchive(Workspace workspace, String ref, String dir, InputStream tar) {
        String checked = FilePaths.check("path", dir);
        return on(workspace, ref, agent -> agents.files().unarchive(agent, checked, tar));
    }

    /** Opens the file (a missing one fails here, before any byte is sent); the caller writes it out. */
    public Download read(Workspace workspace, String ref, String path) {
        String checked = FilePaths.check("path", path);
        return download(workspace, ref, agent -> agents.files().read(agent, checked));
    }

    public Download archive(Workspace workspace, String ref, String dir) {
        String checked = FilePaths.check("path", dir);
        return download(workspace, ref, agent -> agents.files().archive(agent, checked));
    }

    private Download download(Workspace workspace, String ref, Function<AgentEndpoint, AgentClient.Answer> open) {
        return awake.run(awake.find(workspace, ref), c -> {
            var agent = agents.required(c);
            activity.requestBegins(c.id());
            try {
                return new Download(c.id(), open.apply(agent));
            } catch (AgentException e) {
                activity.requestEnds(c.id());
                throw Agents.refusal(e);
            }
        });
    }

    private <T> T on(Workspace workspace, String ref, Function<AgentEndpoint, T> work) {
        return awake.onAgent(awake.find(workspace, ref), work);
    }
}
