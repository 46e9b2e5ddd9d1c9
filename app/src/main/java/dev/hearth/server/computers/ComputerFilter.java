package dev.hearth.server.computers;

import java.util.Map;
import java.util.Set;

/** Which computers a list shows: those with every label given, in one of the states given (none: any). */
public record ComputerFilter(Map<String, String> labels, Set<ComputerState> states) {
    public static final ComputerFilter ALL = new ComputerFilter(Map.of(), Set.of());
}
