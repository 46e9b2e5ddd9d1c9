package dev.hearth.api.databases;

/** One normalised statement (constants shown as $1, $2, ...) and what it cost since counting began. */
public record DatabaseStatement(String query, long calls, double totalMillis, double meanMillis, long rows) {
}
