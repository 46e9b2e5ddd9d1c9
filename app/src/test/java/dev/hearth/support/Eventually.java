package dev.hearth.support;

import java.time.Duration;
import java.util.function.Predicate;

/**
 * Waiting in tests for what happens in its own time (a main process's exit reaching the server, a
 * computer falling asleep): one poll, every 100 ms, until it holds or the time is up. The tests
 * then assert on what was last seen, so a failure shows it.
 */
public final class Eventually {
    private static final Duration EVERY = Duration.ofMillis(100);

    /** What can be polled: a request, a read of a file. */
    @FunctionalInterface
    public interface Poll<T> {
        T get() throws Exception;
    }

    private Eventually() {
    }

    /** The first value of {@code poll} that {@code done} accepts, or the last one seen when {@code limit} ran out. */
    public static <T> T eventually(Duration limit, Poll<T> poll, Predicate<? super T> done) {
        long deadline = System.nanoTime() + limit.toNanos();
        try {
            for (;;) {
                T value = poll.get();
                if (done.test(value) || System.nanoTime() > deadline) {
                    return value;
                }
                Thread.sleep(EVERY);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError("a poll failed: " + e, e);
        }
    }

    /** Whether {@code condition} came to hold within {@code limit}. */
    public static boolean eventually(Duration limit, Poll<Boolean> condition) {
        return eventually(limit, condition, Boolean::booleanValue);
    }
}
