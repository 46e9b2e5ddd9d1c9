package dev.hearth.server.nodes;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * What nodes hand each other as tar streams: a sleeping computer's files, with its checkpoints and
 * (when the receiver lacks it) its unpacked image, when its node drains; a checkpoint, when a fork
 * of it is made on another node.
 */
public interface Cargo {
    /** Whether the image of this manifest digest is unpacked here, so a shipment may leave it out. */
    boolean hasImage(String digest);

    /**
     * Takes computer {@code computerId}, asleep on node {@code from}, off that node: its files from
     * {@code tar}, then the store's record of where it lives. Throws an ApiException to refuse it.
     */
    void receiveComputer(String computerId, String from, InputStream tar) throws IOException;

    /**
     * A whole checkpoint of a computer on this node, for another node that makes a fork of it: its
     * memory image, its /data or disk, and (when {@code withImage}) the unpacked image it was taken
     * from, as tar. 404 when no such checkpoint is here.
     */
    Shipment checkpoint(String checkpointId, boolean withImage);

    /** Bytes for another node, written once the request was found good. */
    @FunctionalInterface
    interface Shipment {
        void writeTo(OutputStream out) throws IOException;
    }

    /** A node without computers takes none. */
    Cargo NONE = new Cargo() {
        @Override
        public boolean hasImage(String digest) {
            return false;
        }

        @Override
        public Shipment checkpoint(String checkpointId, boolean withImage) {
            throw ApiException.notFound("checkpoint " + checkpointId + " on this node");
        }

        @Override
        public void receiveComputer(String computerId, String from, InputStream tar) {
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE,
                    "this node runs no computers");
        }
    };
}
