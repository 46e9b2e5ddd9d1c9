package dev.hearth.server.http;

/** Told of every API request once answered: its method, route template (not its path), status and time. */
@FunctionalInterface
public interface RequestObserver {
    RequestObserver NONE = (method, route, status, nanos) -> { };

    void observe(String method, String route, int status, long nanos);
}
