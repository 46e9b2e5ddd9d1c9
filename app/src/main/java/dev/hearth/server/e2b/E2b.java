package dev.hearth.server.e2b;

import dev.hearth.server.auth.Authenticator;
import dev.hearth.server.computers.RouteTargets;
import dev.hearth.server.nodes.NodeKey;
import java.nio.file.Path;
import java.time.Clock;
import org.eclipse.jetty.server.Handler;
import org.jdbi.v3.core.Jdbi;

/**
 * The E2B facade, assembled: its control plane at {@code /e2b} on the API's listener, and its host
 * names (with the envd of every sandbox) in front of the computer router.
 */
public final class E2b implements AutoCloseable {
    /** What the facade is built on. */
    public record Ground(E2bSettings settings, Jdbi jdbi, Authenticator authenticator, NodeKey key, String v1Base,
                         RouteTargets targets, Path dataDir, Clock clock) {
    }

    private final V1 v1;
    private final E2bApi api;
    private final E2bHosts hosts;

    public E2b(Ground g) {
        this.v1 = new V1(g.v1Base());
        var auth = new E2bAuth(g.authenticator());
        var sandboxes = new Sandboxes(v1, g.jdbi(), new E2bStore(), g.settings(), g.key(), g.clock());
        var life = new SandboxLife(v1, sandboxes, g.clock());
        var parts = new E2bApi.Parts(sandboxes, new SandboxList(v1, sandboxes), life, new Snapshots(v1, sandboxes));
        this.api = new E2bApi("/e2b", auth, parts);
        var envd = new Envd(sandboxes, auth, v1, new EnvdFiles(v1, g.dataDir().resolve("e2b-uploads")), g.clock());
        this.hosts = new E2bHosts(g.settings().domain(), new E2bApi("", auth, parts), envd,
                sandboxes, g.targets());
    }

    /** The control plane under {@code /e2b}, for the API's listener (it passes on every other path). */
    public Handler api() {
        return api;
    }

    /** E2B's host names and routing headers, for the router (it passes on what is Hearth's). */
    public Handler hosts() {
        return hosts;
    }

    @Override
    public void close() throws Exception {
        v1.close();
    }
}
