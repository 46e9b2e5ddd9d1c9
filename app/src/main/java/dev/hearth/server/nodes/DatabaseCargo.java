package dev.hearth.server.nodes;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.io.IOException;
import java.io.InputStream;

/** What a node takes of another's databases: a sleeping one, when its node drains (see {@link Arrivals}). */
public interface DatabaseCargo {
    /**
     * Takes database {@code databaseId}, asleep on node {@code from}, off that node: its disks and
     * checkpoints from {@code tar}, then the store's record of where it lives. Throws an
     * ApiException to refuse it.
     */
    void receiveDatabase(String databaseId, String from, InputStream tar) throws IOException;

    /** A node that cannot run databases takes none. */
    DatabaseCargo NONE = (databaseId, from, tar) -> {
        throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "this node runs no databases");
    };
}
