package dev.hearth.api.network;

import dev.hearth.api.SchemaName;
import java.util.List;

/** A computer's {@code network} as requests give it; an absent (or null) part keeps its value. */
@SchemaName("NetworkSpec")
public record NetworkRequest(Boolean internet, List<String> allowOut, List<String> denyOut) {
}
