package dev.hearth.server.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.api.Patch;
import dev.hearth.api.Required;
import dev.hearth.api.SchemaName;
import dev.hearth.api.WireSchema;
import dev.hearth.api.WireSchemas;
import dev.hearth.server.network.NetworkRequest;
import java.util.List;
import java.util.Map;

/** Wire records of what requests ask of computers; {@link ComputerInput} checks them. */
public final class ComputerRequests {
    private ComputerRequests() {
    }

    @SchemaName("PortSpec")
    public record PortRequest(@Required Integer target, Integer published, String protocol,
                              @JsonProperty("private") Boolean privateAccess) {
    }

    @SchemaName("ResourcesSpec")
    public record ResourcesRequest(Double cpus, Integer memoryMb, Integer pids, Integer diskMb) {
    }

    /**
     * {@code POST /workspaces/{ws}/computers}: from an image, or from a checkpoint (a fork, which
     * keeps what is absent of its source's settings; {@code null} clears one).
     */
    public record CreateComputer(@Required String name, String image,
                                 @WireSchema(WireSchemas.ENV) Patch<Map<String, EnvValue>> env,
                                 List<PortRequest> ports, @JsonProperty("protected") Boolean protectedFlag,
                                 ResourcesRequest resources, Patch<Integer> autoSleepSeconds,
                                 String fromCheckpoint, NetworkRequest network,
                                 @WireSchema(WireSchemas.ARGV) Patch<List<String>> entrypoint,
                                 @WireSchema(WireSchemas.ARGV) Patch<List<String>> command,
                                 Patch<Launch.Restart> restart, Map<String, String> labels,
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

    /**
     * {@code PATCH /computers/{cmp}}: what is absent stays as it is; in {@code env} and
     * {@code labels} a name given null is removed.
     */
    public record UpdateComputer(String name, @WireSchema(WireSchemas.ENV_PATCH) Map<String, EnvValue> env,
                                 @JsonProperty("protected") Boolean protectedFlag,
                                 Patch<Integer> autoSleepSeconds, List<PortRequest> ports,
                                 NetworkRequest network, ResourcesRequest resources,
                                 @WireSchema(WireSchemas.ARGV) Patch<List<String>> entrypoint,
                                 @WireSchema(WireSchemas.ARGV) Patch<List<String>> command,
                                 Patch<Launch.Restart> restart,
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

    /** {@code POST /computers/{cmp}/restore}: the checkpoint, by id or name. */
    @SchemaName("RestoreComputer")
    public record RestoreRequest(@Required String checkpoint) {
    }
}
