package dev.hearth.api.computers;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.hearth.api.Required;
import dev.hearth.api.network.NetworkPolicyView;
import dev.hearth.api.operations.OperationError;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The Computer of the wire. */
public record ComputerView(@Required String id, @Required String workspace, @Required String name,
                           @Required ComputerState state, Pending pending, SleepMode sleepMode, @Required String image,
                           String imageDigest, @Required List<PortView> ports, @Required String url,
                           @Required List<String> envKeys, @Required List<EnvVar> envVars,
                           @Required Resources resources, int generation,
                           @JsonProperty("protected") boolean protectedFlag, Integer autoSleepSeconds,
                           boolean freezeWhenIdle,
                           @Required NetworkPolicyView network, List<String> entrypoint, List<String> command,
                           Restart restart, MainExitView mainExit, @Required Map<String, String> labels,
                           Instant expiresAt, OnExpire onExpire, String parent, String fromCheckpoint,
                           String node, OperationError error, Instant unresponsiveSince, Instant frozenSince,
                           @Required Instant createdAt, @Required Instant updatedAt,
                           Instant lastStartedAt, Instant lastActiveAt, Instant deletedAt) {

}
