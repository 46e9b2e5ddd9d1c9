package dev.hearth.server.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.api.Required;
import dev.hearth.server.network.NetworkPolicy;
import dev.hearth.server.operations.Operation;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The Computer of the wire. */
public record ComputerView(@Required String id, @Required String workspace, @Required String name,
                           @Required ComputerState state, Pending pending, SleepMode sleepMode, @Required String image,
                           String imageDigest, @Required List<PortView> ports, @Required String url,
                           @Required List<String> envKeys, @Required List<EnvVar> envVars,
                           @Required Computer.Resources resources, int generation,
                           @JsonProperty("protected") boolean protectedFlag, Integer autoSleepSeconds,
                           @Required NetworkPolicy.View network, List<String> entrypoint, List<String> command,
                           Launch.Restart restart, MainExitView mainExit, @Required Map<String, String> labels,
                           Instant expiresAt, Lifetime.OnExpire onExpire, String parent, String fromCheckpoint,
                           String node, Operation.Error error, Instant unresponsiveSince, @Required Instant createdAt, @Required Instant updatedAt,
                           Instant lastStartedAt, Instant lastActiveAt, Instant deletedAt) {

    public record PortView(int published, int target, String protocol,
                           @JsonProperty("private") boolean privateAccess, String url) {
    }

    /** How the main process of the running sandbox ended; the field is null while it runs. */
    public record MainExitView(int exitCode, Instant endedAt) {
    }

    /** How an environment variable is set: {@code literal} or {@code secret}, and whether its variable is missing. */
    public record EnvVar(String name, String source, boolean missing) {
    }

}
