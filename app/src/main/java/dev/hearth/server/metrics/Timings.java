package dev.hearth.server.metrics;

import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/** How long the moves users wait on took: features report them, {@code /metrics} shows them as histograms. */
@FunctionalInterface
public interface Timings {
    Timings NONE = (event, nanos) -> { };

    enum Event {
        /** A create, from the request to the computer running (image pulled if need be, booted, agent up). */
        COMPUTER_CREATE("Computer creates started cold: pull if needed, boot, agent ready"),
        /** A create the warm pool served: a pooled sandbox claimed and its main process started. */
        COMPUTER_CLAIM("Computer creates served by the warm pool: a pooled sandbox claimed, its main process started"),
        /** A wake, on request, on exec or through the router: thaw or restore to running. */
        COMPUTER_WAKE("Computer wakes: thawed from a warm sleep, or restored from the sleep image, to running"),
        /** An exec, from the request to the command's exit, with the command's own time. */
        COMPUTER_EXEC("Execs: start to exit, the command's own time included"),
        /** A connection to a sleeping database: the cluster started and ready for it. */
        DATABASE_WAKE("Wakes on connect: a sleeping database's cluster started for a connection");

        private final String help;

        Event(String help) {
            this.help = help;
        }

        public String metric() {
            return "hearth_" + name().toLowerCase(Locale.ROOT) + "_seconds";
        }

        public String help() {
            return help;
        }
    }

    void record(Event event, long nanos);

    default <T> T timed(Event event, Supplier<T> work) {
        long start = System.nanoTime();
        try {
            return work.get();
        } finally {
            record(event, System.nanoTime() - start);
        }
    }

    /** Timed only when there was something to do (the answer is present). */
    default <T> Optional<T> timedIfPresent(Event event, Supplier<Optional<T>> work) {
        long start = System.nanoTime();
        var done = work.get();
        done.ifPresent(d -> record(event, System.nanoTime() - start));
        return done;
    }
}
