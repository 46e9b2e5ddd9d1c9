package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * One gate per computer: execs pass it shared; changes of state (start, sleep, wake, checkpoint,
 * restore, delete) pass it alone. Different computers never wait for each other. A computer frozen
 * while idle is thawed before any change passes (see {@link Dozes}).
 */
final class Gates {
    private final Dozes dozes;
    private final Map<String, Gate> gates = new ConcurrentHashMap<>();
    // Computers moved to another node since this process started, with the check that says where.
    private final Map<String, Runnable> departed = new ConcurrentHashMap<>();

    /**
     * A computer's lock, and a count of changes made through it: odd while one is under way. An exec
     * that read the computer while the count was even and finds it unchanged under the shared lock
     * may trust that read (a store read per exec showed in its latency).
     */
    record Gate(ReentrantReadWriteLock lock, AtomicLong changes) {
    }

    Gates(Dozes dozes) {
        this.dozes = dozes;
    }

    Gate of(String computerId) {
        return gates.computeIfAbsent(computerId, id -> new Gate(new ReentrantReadWriteLock(true), new AtomicLong()));
    }

    long changes(String computerId) {
        var gate = gates.get(computerId);
        return gate == null ? 0 : gate.changes().get();
    }

    /** Thaws a computer frozen while idle (with its gate shared, so no freeze is under way); whether it was frozen. */
    boolean thaw(String computerId) {
        if (!dozes.dozing(computerId)) {
            return false;
        }
        var shared = of(computerId).lock().readLock();
        shared.lock();
        try {
            return dozes.thaw(computerId);
        } finally {
            shared.unlock();
        }
    }

    /** Runs a change alone, after the execs under way have ended on their own. */
    <T> T locked(String computerId, Supplier<T> work) {
        var gate = of(computerId);
        gate.lock().writeLock().lock();
        return changing(computerId, gate, work);
    }

    /**
     * Runs a change alone; while it waits, {@code endExecs} is called again and again, so a long
     * command cannot hold the change off (sleep, delete, restore).
     */
    <T> T lockedEndingExecs(String computerId, Runnable endExecs, Supplier<T> work) {
        var gate = of(computerId);
        var lock = gate.lock().writeLock();
        try {
            while (!lock.tryLock(200, TimeUnit.MILLISECONDS)) {
                endExecs.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "interrupted while ending the computer's commands");
        }
        return changing(computerId, gate, work);
    }

    /**
     * Runs a change alone once no exec runs, without making new execs queue behind it (a checkpoint
     * must not disturb the computer). {@code busy} covers what does not hold the gate (terminals).
     * Answers empty if execs kept running for {@code patience}; {@code work} answers non-null.
     */
    <T> Optional<T> lockedWhenIdle(String computerId, Duration patience, BooleanSupplier busy,
                                             Supplier<T> work) {
        var gate = of(computerId);
        var lock = gate.lock().writeLock();
        long deadline = System.nanoTime() + patience.toNanos();
        // tryLock() without a timeout barges past queued execs and fails while any exec holds the gate.
        while (!idle(lock, busy)) {
            if (System.nanoTime() > deadline) {
                return Optional.empty();
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "interrupted while waiting for the computer's commands");
            }
        }
        return Optional.ofNullable(changing(computerId, gate, work));
    }

    private static boolean idle(ReentrantReadWriteLock.WriteLock lock, BooleanSupplier busy) {
        if (!lock.tryLock()) {
            return false;
        }
        if (busy.getAsBoolean()) {
            lock.unlock();
            return false;
        }
        return true;
    }

    /**
     * After the computer moved to another node: a change that waited for its gate meanwhile must not
     * touch it here. {@code elsewhere} throws where it is now (421 wrong_node, or 503 while that node
     * is down); if it returns, the computer came back and changes pass again.
     */
    void departed(String computerId, Runnable elsewhere) {
        departed.put(computerId, elsewhere);
    }

    /** Runs a change with the write lock held, counting it; releases the lock. */
    private <T> T changing(String computerId, Gate gate, Supplier<T> work) {
        gate.changes().incrementAndGet();
        try {
            var elsewhere = departed.get(computerId);
            if (elsewhere != null) {
                elsewhere.run();
                departed.remove(computerId);
            }
            dozes.thaw(computerId);
            return work.get();
        } finally {
            gate.changes().incrementAndGet();
            gate.lock().writeLock().unlock();
        }
    }
}
