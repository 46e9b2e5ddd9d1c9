package dev.hearth.server.computers;

import dev.hearth.api.computers.ComputerMetrics;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.MemoryKill;
import dev.hearth.fs.Disk;
import dev.hearth.server.agent.AgentStats;
import dev.hearth.server.sandbox.SandboxUsage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/** A computer's {@link ComputerMetrics}: its sandbox's cgroup for CPU and memory, its disk for space. */
final class ComputerUsage {
    private final SandboxAccess access;
    private final Dirs dirs;
    private final Clock clock;
    private final Agents agents;
    private final Dozes dozes;

    ComputerUsage(SandboxAccess access, Dirs dirs, Clock clock, Agents agents, Dozes dozes) {
        this.agents = agents;
        this.dozes = dozes;
        this.access = access;
        this.dirs = dirs;
        this.clock = clock;
    }

    ComputerMetrics of(Computer computer) {
        boolean running = computer.state() == ComputerState.READY;
        Optional<SandboxUsage> usage = running ? access.runtime().flatMap(r -> r.usage(computer.sandboxId()))
                : Optional.empty();
        var disk = disk(computer);
        Optional<AgentStats> stats = !running ? Optional.empty()
                : dozes.dozing(computer.id()) ? dozes.stats(computer.id()) : agents.stats(computer);
        return new ComputerMetrics(computer.id(), computer.state(), usage.map(SandboxUsage::cpuSeconds).orElse(null),
                usage.map(SandboxUsage::memoryBytes).orElse(null), stats.map(AgentStats::processes).orElse(null),
                stats.map(AgentStats::memoryKills).orElse(null),
                stats.flatMap(AgentStats::lastMemoryKill).map(ComputerUsage::memoryKill).orElse(null),
                disk.used(), disk.size(), clock.instant());
    }

    /** Bytes used on a computer's disk, and its size (null without a disk of its own). */
    private record DiskUse(long used, Long size) {
    }

    /**
     * A disk of its own is a mounted file system, so its numbers are the file system's; without one,
     * the bytes of the files under the computer's /data.
     */
    private DiskUse disk(Computer computer) {
        Path dir = dirs.computer(computer.id());
        try {
            if (!Files.isDirectory(dir)) {
                return new DiskUse(0, null);
            }
            var store = Files.getFileStore(dir);
            if (!store.equals(Files.getFileStore(dir.getParent()))) {
                return new DiskUse(store.getTotalSpace() - store.getUnallocatedSpace(), store.getTotalSpace());
            }
            return new DiskUse(Disk.size(dirs.data(computer.id())), null);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure the disk of computer " + computer.id(), e);
        }
    }

    private static MemoryKill memoryKill(AgentStats.Kill kill) {
        return new MemoryKill(kill.pid(), kill.command(), kill.bytes(), kill.at());
    }
}
