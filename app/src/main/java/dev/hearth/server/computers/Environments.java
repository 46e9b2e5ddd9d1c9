package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.computers.EnvValue;
import dev.hearth.server.images.Image;
import dev.hearth.server.variables.VariableService;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A computer's process environment, resolved when a process starts: the image's, then the
 * computer's literals and the current values of the variables it references, then the call's own.
 */
final class Environments {
    private static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final VariableService variables;

    Environments(VariableService variables) {
        this.variables = variables;
    }

    Map<String, String> of(Computer computer, Image image, Map<String, String> extra) {
        var env = new LinkedHashMap<String, String>();
        for (String kv : image.config().env()) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                env.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        env.putIfAbsent("PATH", DEFAULT_PATH);
        computer.settings().env().forEach((name, value) -> {
            switch (value) {
                case EnvValue.Literal l -> env.put(name, l.value());
                case EnvValue.Secret s -> variables.valueOf(computer.workspace(), s.variable()).ifPresent(v -> env.put(name, v));
            }
        });
        env.putAll(extra);
        return env;
    }

    /** The variables the computer references that were deleted. */
    Set<String> missing(Computer computer) {
        var secrets = secretNames(computer);
        return secrets.isEmpty() ? Set.of() : variables.missing(computer.workspace(), secrets);
    }

    /** 409 {@code variable_missing} when the computer references deleted variables. */
    void requireVariables(Computer computer) {
        var missing = missing(computer);
        if (!missing.isEmpty()) {
            throw new ApiException(ErrorCode.VARIABLE_MISSING, "computer " + computer.name() + " references deleted "
                    + "variables " + String.join(", ", missing) + "; create them again or detach them with "
                    + "PATCH {\"env\": {NAME: null}}", Map.of("variables", List.copyOf(missing)));
        }
    }

    private static Set<String> secretNames(Computer computer) {
        var names = new HashSet<String>();
        computer.settings().env().values().forEach(v -> {
            if (v instanceof EnvValue.Secret s) {
                names.add(s.variable());
            }
        });
        return names;
    }
}
