package dev.hearth.api.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.api.Patch;
import dev.hearth.api.WireSchema;
import dev.hearth.api.WireSchemas;
import dev.hearth.api.network.NetworkRequest;
import java.util.List;
import java.util.Map;

/**
 * {@code PATCH /computers/{cmp}}: what is absent stays as it is; in {@code env} and
 * {@code labels} a name given null is removed.
 */
public record UpdateComputer(String name, @WireSchema(WireSchemas.ENV_PATCH) Map<String, EnvValue> env,
                             @JsonProperty("protected") Boolean protectedFlag,
                             Patch<Integer> autoSleepSeconds, Boolean freezeWhenIdle, List<PortSpec> ports,
                             NetworkRequest network, ResourcesSpec resources,
                             @WireSchema(WireSchemas.ARGV) Patch<List<String>> entrypoint,
                             @WireSchema(WireSchemas.ARGV) Patch<List<String>> command,
                             Patch<Restart> restart,
                             @WireSchema(WireSchemas.LABELS_PATCH) Map<String, String> labels,
                             @WireSchema(WireSchemas.INSTANT) Patch<String> expiresAt, String onExpire) {
    public UpdateComputer {
        autoSleepSeconds = Patch.orKeep(autoSleepSeconds);
        entrypoint = Patch.orKeep(entrypoint);
        command = Patch.orKeep(command);
        restart = Patch.orKeep(restart);
        expiresAt = Patch.orKeep(expiresAt);
    }
}
