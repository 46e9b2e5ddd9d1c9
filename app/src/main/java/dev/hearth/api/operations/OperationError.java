package dev.hearth.api.operations;

/** Why an operation failed. */
public record OperationError(String code, String message) {
}
