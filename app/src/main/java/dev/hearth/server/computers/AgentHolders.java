package dev.hearth.server.computers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Whose agent a memory image holds: the computer it was saved from (whose secret it answers to) and
 * the agent's boot id then (empty if it did not say), written beside the image (a sleep or a
 * checkpoint). An image without it was saved before agents had a channel. An image that moved
 * from another node also holds the secret its agent answers to there (nodes derive secrets from
 * keys of their own), with which this node gives the agent its own; the image's memory holds that
 * secret anyway, so writing it beside the image discloses nothing.
 */
final class AgentHolders {
    private static final String IN_IMAGE = "agent-holder";

    /** The computer whose agent was saved, its boot id, and the secret it held when it came from another node ("" if not). */
    record Holder(String computerId, String boot, String carriedSecret) {
        boolean carried() {
            return !carriedSecret.isEmpty();
        }
    }

    private AgentHolders() {
    }

    /** Notes the holder, if its agent has a channel ({@code boot} present). */
    static void record(Computer computer, Optional<String> boot, Path imageDir) {
        if (boot.isEmpty()) {
            return;
        }
        try {
            Files.writeString(imageDir.resolve(IN_IMAGE), computer.id() + "\n" + boot.get() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Before the image moves to another node: writes down the secret its agent answers to here
     * ({@code secretOf} the holder), unless it carries one from an earlier move already.
     */
    static void carrySecret(Path imageDir, UnaryOperator<String> secretOf) {
        var holder = of(imageDir);
        if (holder.isEmpty() || holder.get().carried()) {
            return;
        }
        var h = holder.get();
        try {
            Files.writeString(imageDir.resolve(IN_IMAGE), h.computerId() + "\n" + h.boot() + "\n"
                    + secretOf.apply(h.computerId()) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Optional<Holder> of(Path imageDir) {
        try {
            Path file = imageDir.resolve(IN_IMAGE);
            if (!Files.exists(file)) {
                return Optional.empty();
            }
            var lines = Files.readAllLines(file);
            return Optional.of(new Holder(lines.getFirst().strip(), lines.size() > 1 ? lines.get(1).strip() : "",
                    lines.size() > 2 ? lines.get(2).strip() : ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
