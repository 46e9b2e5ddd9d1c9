package dev.hearth.server.teardown;

import dev.hearth.server.process.Signals;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The host's processes that name a data directory on their command line: a server's PostgreSQL
 * clusters ({@code postgres -D …}), its pgbouncer ({@code pgbouncer …/pgbouncer.ini}) and anything
 * else it started there, such as a sandbox whose runsc state is gone. PostgreSQL gets its fast
 * shutdown (SIGINT), a sandbox's processes SIGKILL, the others SIGTERM; whatever still runs after
 * ten seconds is killed.
 */
final class Processes {
    private static final long GRACE_MILLIS = 10_000;

    private Processes() {
    }

    static int endThoseNaming(Path dir) throws IOException {
        var found = naming(dir);
        for (long pid : found) {
            Signals.send(pid, signalFor(arguments(pid)));
        }
        long deadline = System.currentTimeMillis() + GRACE_MILLIS;
        var left = new ArrayList<>(found);
        while (!left.isEmpty() && System.currentTimeMillis() < deadline) {
            left.removeIf(pid -> !Files.exists(Path.of("/proc", String.valueOf(pid))));
            sleep();
        }
        left.forEach(pid -> Signals.send(pid, Signals.SIGKILL));
        return found.size();
    }

    /** Processes other than this one with an argument that is the directory or under it. */
    static List<Long> naming(Path dir) throws IOException {
        String path = dir.toString();
        var found = new ArrayList<Long>();
        long self = ProcessHandle.current().pid();
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            for (Path entry : entries.filter(e -> e.getFileName().toString().chars().allMatch(Character::isDigit)).toList()) {
                long pid = Long.parseLong(entry.getFileName().toString());
                if (pid != self && arguments(pid).stream().anyMatch(a -> names(a, path))) {
                    found.add(pid);
                }
            }
        }
        return found;
    }

    /** PostgreSQL's fast shutdown; a sandbox's helpers have nothing to save (its disks are files). */
    private static int signalFor(List<String> args) {
        if (args.isEmpty()) {
            return Signals.SIGTERM;
        }
        String program = args.getFirst();
        if (program.endsWith("/postgres")) {
            return Signals.SIGINT;
        }
        return program.startsWith("runsc") ? Signals.SIGKILL : Signals.SIGTERM;
    }

    /** The directory itself, a path under it, or an option set to either ({@code --root=DIR/runsc}). */
    private static boolean names(String argument, String dir) {
        String value = argument.startsWith("-") && argument.contains("=")
                ? argument.substring(argument.indexOf('=') + 1) : argument;
        return value.equals(dir) || value.startsWith(dir + "/");
    }

    private static List<String> arguments(long pid) {
        try {
            String line = new String(Files.readAllBytes(Path.of("/proc", String.valueOf(pid), "cmdline")),
                    StandardCharsets.UTF_8);
            return line.isEmpty() ? List.of() : List.of(line.split("\0"));
        } catch (IOException e) {
            return List.of(); // gone meanwhile
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
