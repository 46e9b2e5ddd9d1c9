package dev.hearth.server.workspaces;

import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.tenancy.Caller;
import java.time.Instant;
import org.jdbi.v3.core.Handle;

/**
 * What a new workspace's creator gets, inside the transaction that creates it (access makes them
 * its admin). A hook, so that workspaces need not know how access is stored.
 */
@FunctionalInterface
public interface Founding {
    void founded(Handle h, Workspace workspace, Caller creator, Instant at);
}
