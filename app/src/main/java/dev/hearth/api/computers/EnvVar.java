package dev.hearth.api.computers;

/** How an environment variable is set: {@code literal} or {@code secret}, and whether its variable is missing. */
public record EnvVar(String name, String source, boolean missing) {
}
