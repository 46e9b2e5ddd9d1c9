package dev.hearth.server.computers;

import dev.hearth.api.computers.ComputerState;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which computers a list shows: those with every label given, in one of the states given (none:
 * any), whose name or image contains {@code text} (any letter case; none: all).
 */
public record ComputerFilter(Map<String, String> labels, Set<ComputerState> states, Optional<String> text) {
    public static final ComputerFilter ALL = new ComputerFilter(Map.of(), Set.of(), Optional.empty());

    /** {@code text} as a LIKE pattern (escape character {@code !}) over lower-cased columns; its own % _ and ! are literal. */
    public Optional<String> pattern() {
        return text.map(t -> "%" + t.toLowerCase(Locale.ROOT).replace("!", "!!").replace("%", "!%")
                .replace("_", "!_") + "%");
    }
}
