package dev.hearth.server.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/** Wire records of what requests ask of computers; {@link ComputerInput} checks them. */
public final class ComputerRequests {
    private ComputerRequests() {
    }

    public record PortRequest(Integer target, Integer published, String protocol,
                              @JsonProperty("private") Boolean privateAccess) {
    }

    public record ResourcesRequest(Double cpus, Integer memoryMb, Integer pids, Integer diskMb) {
    }

    /** {@code POST /workspaces/{ws}/computers}: from an image, or from a checkpoint (a fork). */
    public record CreateComputer(String name, String image, JsonNode env, List<PortRequest> ports,
                                 @JsonProperty("protected") Boolean protectedFlag, ResourcesRequest resources,
                                 JsonNode autoSleepSeconds, String fromCheckpoint, JsonNode network,
                                 JsonNode entrypoint, JsonNode command, JsonNode restart, Map<String, String> labels,
                                 JsonNode expiresAt, String onExpire) {
    }

    /** {@code PATCH /computers/{cmp}}: what is absent stays as it is. */
    public record UpdateComputer(String name, JsonNode env, @JsonProperty("protected") Boolean protectedFlag,
                                 JsonNode autoSleepSeconds, List<PortRequest> ports, JsonNode network,
                                 ResourcesRequest resources, JsonNode entrypoint, JsonNode command, JsonNode restart,
                                 JsonNode labels, JsonNode expiresAt, String onExpire) {
    }

    /** {@code POST /computers/{cmp}/restore}: the checkpoint, by id or name. */
    public record RestoreRequest(String checkpoint) {
    }
}
