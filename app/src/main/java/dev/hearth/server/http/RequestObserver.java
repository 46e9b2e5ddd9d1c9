package dev.hearth.server.http;

/** Told of every API request once answered: its method, route template (not its path), status and time. */
@FunctionalInterface
public interface RequestObserver {
    RequestObserver NONE = (method, route, status, nanos) -> { };

    void observe(String method, String route, int status, long nanos);

    /** A JSON answer as written; {@code route} is the template without /v1, or null when none matched. */
    default void answered(String method, String route, int status, byte[] json) {
    }

    /** A JSON request body the route accepted (answered 2xx); {@code route} as for {@link #answered}. */
    default void accepted(String method, String route, byte[] json) {
    }

    /** Both told, this one first. */
    default RequestObserver and(RequestObserver other) {
        var first = this;
        return new RequestObserver() {
            @Override
            public void observe(String method, String route, int status, long nanos) {
                first.observe(method, route, status, nanos);
                other.observe(method, route, status, nanos);
            }

            @Override
            public void answered(String method, String route, int status, byte[] json) {
                first.answered(method, route, status, json);
                other.answered(method, route, status, json);
            }

            @Override
            public void accepted(String method, String route, byte[] json) {
                first.accepted(method, route, json);
                other.accepted(method, route, json);
            }
        };
    }
}
