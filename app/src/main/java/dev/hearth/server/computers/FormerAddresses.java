package dev.hearth.server.computers;

import dev.hearth.server.sandbox.SandboxSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The addresses a computer's memory may hold sockets on (see {@link SandboxSpec#formerAddresses}):
 * its own, and those it carries from the computers its memory was restored from. Saved beside each
 * memory image (a sleep or a checkpoint), carried into whatever is restored from it, forgotten on a
 * fresh boot.
 */
final class FormerAddresses {
    private static final String IN_IMAGE = "addresses";

    private final Dirs dirs;

    FormerAddresses(Dirs dirs) {
        this.dirs = dirs;
    }

    /** After the computer's memory was saved in {@code imageDir}. */
    void record(Computer computer, Path imageDir) {
        var addresses = new LinkedHashSet<String>();
        addresses.add(computer.slot().sandboxAddress());
        addresses.addAll(read(carried(computer)));
        write(imageDir.resolve(IN_IMAGE), List.copyOf(addresses));
    }

    /** Before {@code next} is restored from {@code imageDir}: the image's addresses but its own, now its. */
    List<String> carry(Computer next, Path imageDir) {
        var former = new ArrayList<>(read(imageDir.resolve(IN_IMAGE)));
        former.remove(next.slot().sandboxAddress());
        write(carried(next), former);
        return List.copyOf(former);
    }

    /** A fresh boot: nothing in memory from before. */
    void forget(Computer computer) {
        try {
            Files.deleteIfExists(carried(computer));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path carried(Computer computer) {
        return dirs.computer(computer.id()).resolve("former-addresses");
    }

    private static List<String> read(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList() : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, List<String> addresses) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, addresses);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
