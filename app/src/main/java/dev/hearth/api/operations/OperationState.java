package dev.hearth.api.operations;

import dev.hearth.api.WireName;

/** Stored by name (RUNNING), shown by wire name (running). */
public enum OperationState implements WireName {
    RUNNING, SUCCEEDED, FAILED
}
