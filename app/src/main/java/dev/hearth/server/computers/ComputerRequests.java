package dev.hearth.server.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Required;
import dev.hearth.api.SchemaName;
import dev.hearth.api.WireSchema;
import dev.hearth.api.WireSchemas;
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

    /** {@code POST /workspaces/{ws}/computers}: from an image, or from a checkpoint (a fork). */
    public record CreateComputer(@Required String name, String image, @WireSchema(WireSchemas.ENV) JsonNode env,
                                 List<PortRequest> ports, @JsonProperty("protected") Boolean protectedFlag,
                                 ResourcesRequest resources, @WireSchema(WireSchemas.SECONDS) JsonNode autoSleepSeconds,
                                 String fromCheckpoint, @WireSchema(WireSchemas.NETWORK) JsonNode network,
                                 @WireSchema(WireSchemas.ARGV) JsonNode entrypoint,
                                 @WireSchema(WireSchemas.ARGV) JsonNode command,
                                 @WireSchema(WireSchemas.RESTART) JsonNode restart, Map<String, String> labels,
                                 @WireSchema(WireSchemas.INSTANT) JsonNode expiresAt, String onExpire) {
    }

    /** {@code PATCH /computers/{cmp}}: what is absent stays as it is. */
    public record UpdateComputer(String name, @WireSchema(WireSchemas.ENV_PATCH) JsonNode env,
                                 @JsonProperty("protected") Boolean protectedFlag,
                                 @WireSchema(WireSchemas.SECONDS) JsonNode autoSleepSeconds, List<PortRequest> ports,
                                 @WireSchema(WireSchemas.NETWORK) JsonNode network, ResourcesRequest resources,
                                 @WireSchema(WireSchemas.ARGV) JsonNode entrypoint,
                                 @WireSchema(WireSchemas.ARGV) JsonNode command,
                                 @WireSchema(WireSchemas.RESTART) JsonNode restart,
                                 @WireSchema(WireSchemas.LABELS_PATCH) JsonNode labels,
                                 @WireSchema(WireSchemas.INSTANT) JsonNode expiresAt, String onExpire) {
    }

    /** {@code POST /computers/{cmp}/restore}: the checkpoint, by id or name. */
    @SchemaName("RestoreComputer")
    public record RestoreRequest(@Required String checkpoint) {
    }
}
