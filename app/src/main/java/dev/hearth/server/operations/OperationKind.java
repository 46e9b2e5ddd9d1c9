package dev.hearth.server.operations;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One kind of long work (e.g. {@code checkpoint.create}). A resumable kind is run again from its
 * input when the process running it died; its work must therefore be safe to repeat. A kind that
 * is not resumable is marked failed instead.
 */
public interface OperationKind {
    String name();

    boolean resumable();

    /** Does the work; throwing fails the operation with the exception's message. */
    void run(Work work) throws Exception;

    /** A kind from its name, whether it may be repeated after a crash, and its work. */
    static OperationKind of(String name, boolean resumable, Runner work) {
        return new Simple(name, resumable, work);
    }

    /** The work of a kind, given its operation. */
    @FunctionalInterface
    interface Runner {
        void run(Work work) throws Exception;
    }

    /** The kind {@link #of} makes. */
    record Simple(String name, boolean resumable, Runner work) implements OperationKind {
        @Override
        public void run(Work w) throws Exception {
            work.run(w);
        }
    }

    /** What the work sees of its operation. */
    interface Work {
        String operationId();

        String workspace();

        String resource();

        JsonNode input();

        /** Records a line of progress that clients polling the operation see. */
        void progress(String message);
    }

    /** A failure whose code and message the client should see as they are. */
    final class Failure extends Exception {
        private final String code;

        public Failure(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }

        public String code() {
            return code;
        }
    }
}
