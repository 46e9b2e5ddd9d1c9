package dev.hearth.server.network;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/** What the resolver and the waker need to know of computers and databases, by address and by name. */
public interface Directory {
    /** The workspace of the computer at this address (its sandbox address), if one lives there. */
    Optional<String> workspaceOf(InetAddress computer);

    /** The address of a live computer of the workspace, on this node or another, by name. */
    Optional<InetAddress> computer(String workspace, String name);

    /** The address a live database of the workspace is reached at from its computers, by name. */
    Optional<InetAddress> database(String workspace, String name);

    /** Every live computer of another node. */
    List<Remote> elsewhere();

    /** A computer of another node: its workspace, its sandbox address and its node's address. */
    record Remote(String workspace, InetAddress address, InetAddress node) {
    }
}
