package dev.hearth.api.images;

import java.time.Instant;

/** An image a workspace pulled: the reference it asked for and the digest that answered. */
public record WorkspaceImage(String id, String workspace, String reference, ImageState state, String digest,
                             String error, Instant createdAt, Instant pulledAt) {
}
