package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/** A computer's network policy as options: what is given goes into {@code network}; the rest stays. */
public final class NetworkOptions {
    @Option(names = "--internet", arity = "1", paramLabel = "true|false",
            description = "whether it may reach the internet (default true)")
    Boolean internet;

    @Option(names = "--allow-out", split = ",", paramLabel = "CIDR",
            description = "networks it may reach even without the internet; replaces the list (--allow-out= empties it)")
    List<String> allowOut;

    @Option(names = "--deny-out", split = ",", paramLabel = "CIDR",
            description = "networks it never reaches; replaces the list (--deny-out= empties it)")
    List<String> denyOut;

    Optional<Map<String, Object>> body() {
        var network = new LinkedHashMap<String, Object>();
        if (internet != null) {
            network.put("internet", internet);
        }
        if (allowOut != null) {
            network.put("allow_out", nonEmpty(allowOut));
        }
        if (denyOut != null) {
            network.put("deny_out", nonEmpty(denyOut));
        }
        return network.isEmpty() ? Optional.empty() : Optional.of(network);
    }

    private static List<String> nonEmpty(List<String> values) {
        var list = new ArrayList<String>();
        values.stream().map(String::strip).filter(v -> !v.isEmpty()).forEach(list::add);
        return list;
    }

    /** "internet", "no internet", with what is allowed or denied besides. */
    static String summary(JsonNode network) {
        if (network.isMissingNode() || network.isNull()) {
            return "-";
        }
        var parts = new ArrayList<String>();
        parts.add(network.path("internet").asBoolean(true) ? "internet" : "no internet");
        network.path("allow_out").forEach(c -> parts.add("+" + c.asText()));
        network.path("deny_out").forEach(c -> parts.add("-" + c.asText()));
        return String.join(" ", parts);
    }
}
