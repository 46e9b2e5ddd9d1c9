package dev.hearth.server.workspaces;

import org.jdbi.v3.core.Handle;

/** One kind of resource a workspace can hold; a workspace holding any cannot be deleted. */
public interface Contents {
    /** Plural noun for messages, e.g. "computers". */
    String noun();

    long count(Handle h, String workspace);
}
