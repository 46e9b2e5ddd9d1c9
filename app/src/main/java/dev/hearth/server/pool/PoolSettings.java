package dev.hearth.server.pool;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many booted, unclaimed sandboxes to keep per image ({@code hearth serve --warm-pool
 * IMAGE=N[,IMAGE=N]}); none at all when empty.
 */
public record PoolSettings(Map<String, Integer> sizes) {
    public static final PoolSettings NONE = new PoolSettings(Map.of());
    /** What {@code hearth serve} keeps unless told otherwise. */
    public static final String DEFAULT = "hearth/busybox=2";
    // Each pooled sandbox holds a network slot and ~17 MiB; more than this per image is a typo.
    static final int MAX_PER_IMAGE = 64;

    public PoolSettings {
        sizes = Map.copyOf(sizes);
    }

    public boolean empty() {
        return sizes.isEmpty();
    }

    /** {@code IMAGE=N[,IMAGE=N]}; {@code 0}, {@code off} or an empty text is no pool, and so is an image at 0. */
    public static PoolSettings parse(String text) {
        var sizes = new LinkedHashMap<String, Integer>();
        String trimmed = text == null ? "" : text.strip();
        if (trimmed.isEmpty() || trimmed.equals("0") || trimmed.equals("off")) {
            return NONE;
        }
        for (String part : trimmed.split(",")) {
            int eq = part.lastIndexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--warm-pool takes IMAGE=N[,IMAGE=N], not " + part.strip());
            }
            String image = part.substring(0, eq).strip();
            int n = count(part.substring(eq + 1).strip(), image);
            if (n > 0) {
                sizes.put(image, n);
            }
        }
        return new PoolSettings(sizes);
    }

    private static int count(String text, String image) {
        try {
            int n = Integer.parseInt(text);
            if (n < 0 || n > MAX_PER_IMAGE) {
                throw new IllegalArgumentException("--warm-pool keeps 0 to " + MAX_PER_IMAGE + " sandboxes of " + image);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--warm-pool: " + text + " is not a number of sandboxes of " + image);
        }
    }
}
