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
