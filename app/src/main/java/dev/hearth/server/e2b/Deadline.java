package dev.hearth.server.e2b;

/**
 * A stream's deadline from its {@code Connect-Timeout-Ms} header: once it passes, what was asked
 * to happen then runs (envd kills the command), unless the stream ended first.
 */
final class Deadline {
    private final long millis;
    private Thread timer;
    private boolean cancelled;

    private Deadline(long millis) {
        this.millis = millis;
    }

    /** From the header's value; none (or not a positive number): never. */
    static Deadline of(String header) {
        try {
            long ms = header == null ? 0 : Long.parseLong(header.strip());
            return new Deadline(ms > 0 ? ms : 0);
        } catch (NumberFormatException e) {
            return new Deadline(0);
        }
    }

    synchronized void onExpiry(Runnable action) {
        if (millis == 0 || cancelled) {
            return;
        }
        timer = Thread.ofVirtual().name("e2b-deadline").start(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException cancelledMeanwhile) {
                return;
            }
            synchronized (this) {
                if (cancelled) {
                    return;
                }
            }
            action.run();
        });
    }

    synchronized void cancel() {
        cancelled = true;
        if (timer != null) {
            timer.interrupt();
        }
    }
}
