package dev.hearth.api.images;

import dev.hearth.api.WireName;

/** Where a workspace's pull of an image stands: pulling, then ready (with a digest) or failed (with the reason). */
public enum ImageState implements WireName {
    PULLING, READY, FAILED;

    @Override
    public String toString() {
        return wire();
    }

    public static ImageState of(String wire) {
        return WireName.parse(ImageState.class, wire);
    }
}
