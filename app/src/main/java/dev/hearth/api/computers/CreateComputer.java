package dev.hearth.api.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.api.Patch;
import dev.hearth.api.Required;
import dev.hearth.api.WireSchema;
import dev.hearth.api.WireSchemas;
import dev.hearth.api.network.NetworkRequest;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /workspaces/{ws}/computers}: from an image, or from a checkpoint (a fork, which
 * keeps what is absent of its source's settings; {@code null} clears one).
 */
public record CreateComputer(@Required String name, String image,
                             @WireSchema(WireSchemas.ENV) Patch<Map<String, EnvValue>> env,
                             List<PortSpec> ports, @JsonProperty("protected") Boolean protectedFlag,
                             ResourcesSpec resources, Patch<Integer> autoSleepSeconds, Boolean freezeWhenIdle,
                             String fromCheckpoint, NetworkRequest network,
                             @WireSchema(WireSchemas.ARGV) Patch<List<String>> entrypoint,
                             @WireSchema(WireSchemas.ARGV) Patch<List<String>> command,
                             Patch<Restart> restart, Map<String, String> labels,
                             @WireSchema(WireSchemas.INSTANT) Patch<String> expiresAt, String onExpire) {
    public CreateComputer {
        env = Patch.orKeep(env);
        autoSleepSeconds = Patch.orKeep(autoSleepSeconds);
        entrypoint = Patch.orKeep(entrypoint);
        command = Patch.orKeep(command);
        restart = Patch.orKeep(restart);
        expiresAt = Patch.orKeep(expiresAt);
    }
}
