package dev.hearth.server.computers;

/**
 * Where computer URLs point: the router's scheme ({@code http}, or {@code https} when it has a
 * certificate) and its domain and port as URLs name them ({@code localhost:7301}).
 */
public record RouterAddress(String scheme, String host) {
    /** {@code {scheme}://{label}.{host}}. */
    String url(String label) {
        return scheme + "://" + label + "." + host;
    }
}
