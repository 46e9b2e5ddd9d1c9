package dev.hearth.server.nodes;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.io.IOException;
import java.io.InputStream;

/**
 * What a node takes in when another one drains: a sleeping computer's files, with its checkpoints
 * and (when this node lacks it) the image it was unpacked from, as one tar stream.
 */
public interface Cargo {
    /** Whether the image of this manifest digest is unpacked here, so a shipment may leave it out. */
    boolean hasImage(String digest);

    /**
     * Takes computer {@code computerId}, asleep on node {@code from}, off that node: its files from
     * {@code tar}, then the store's record of where it lives. Throws an ApiException to refuse it.
     */
    void receiveComputer(String computerId, String from, InputStream tar) throws IOException;

    /** A node without computers takes none. */
    Cargo NONE = new Cargo() {
        @Override
        public boolean hasImage(String digest) {
            return false;
        }

        @Override
        public void receiveComputer(String computerId, String from, InputStream tar) {
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE,
                    "this node runs no computers");
        }
    };
}
