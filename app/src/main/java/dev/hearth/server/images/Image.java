package dev.hearth.server.images;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An unpacked image: its manifest digest, the shared read-only rootfs, and the parts of its
 * config a computer needs.
 */
public record Image(String reference, String digest, Path rootfs, Config config) {

    /** The OCI image config fields Hearth uses. */
    public record Config(List<String> entrypoint, List<String> cmd, List<String> env, String workingDir) {
        /** The main process: entrypoint then cmd; empty when the image names none. */
        public List<String> command() {
            var all = new ArrayList<>(entrypoint);
            all.addAll(cmd);
            return List.copyOf(all);
        }
    }
}
