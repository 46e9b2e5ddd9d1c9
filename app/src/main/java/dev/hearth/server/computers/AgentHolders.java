package dev.hearth.server.computers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whose agent a memory image holds: the computer it was saved from (whose secret it answers to) and
 * the agent's boot id then (empty if it did not say), written beside the image (a sleep or a
 * checkpoint). An image without it was saved before agents had a channel.
 */
final class AgentHolders {
    private static final String IN_IMAGE = "agent-holder";

    /** The computer whose agent was saved, and its boot id. */
    record Holder(String computerId, String boot) {
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

    static Optional<Holder> of(Path imageDir) {
        try {
            Path file = imageDir.resolve(IN_IMAGE);
            if (!Files.exists(file)) {
                return Optional.empty();
            }
            var lines = Files.readAllLines(file);
            return Optional.of(new Holder(lines.getFirst().strip(), lines.size() > 1 ? lines.get(1).strip() : ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
