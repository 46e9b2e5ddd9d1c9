package dev.hearth.server.computers;

import dev.hearth.api.computers.Restart;
import dev.hearth.server.images.Image;
import java.util.ArrayList;
import java.util.List;

/**
 * How a computer's main process is started: {@code entrypoint} and {@code command} override the
 * image's (null: the image's), and {@code restart} says what happens when it ends.
 */
public record Launch(List<String> entrypoint, List<String> command, Restart restart) {
    public static final Launch IMAGE = new Launch(null, null, Restart.ON_FAILURE);

    /**
     * The main process's argv, as Docker makes it: an entrypoint given here drops the image's cmd
     * unless a command is given too. Empty: no main process (the agent waits for execs).
     */
    List<String> argv(Image.Config image) {
        var argv = new ArrayList<>(entrypoint == null ? image.entrypoint() : entrypoint);
        argv.addAll(command != null ? command : entrypoint == null ? image.cmd() : List.of());
        return List.copyOf(argv);
    }
}
