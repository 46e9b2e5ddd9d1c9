package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.Patch;
import dev.hearth.api.Validate;
import dev.hearth.api.computers.EnvValue;
import dev.hearth.api.computers.PortSpec;
import dev.hearth.api.computers.Resources;
import dev.hearth.api.computers.ResourcesSpec;
import dev.hearth.server.agent.AgentEndpoint;
import dev.hearth.server.computers.Computer.Port;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/** The checks and defaults of a computer's settings as requests give them (create, PATCH, exec). */
final class ComputerInput {
    static final int MIN_AUTO_SLEEP = 1;

    private ComputerInput() {
    }

    static Map<String, String> callEnv(Map<String, String> env) {
        if (env == null) {
            return Map.of();
        }
        for (var e : env.entrySet()) {
            if (!EnvValue.NAME.matcher(e.getKey()).matches() || e.getValue() == null) {
                throw ApiException.invalidField("env." + e.getKey(), "names are letters, digits and _; values strings");
            }
        }
        return env;
    }

    static List<Port> ports(List<PortSpec> requested) {
        var ports = new ArrayList<Port>();
        var published = new HashSet<Integer>();
        for (var p : requested == null ? List.<PortSpec>of() : requested) {
            if (p == null) {
                throw ApiException.invalidField("ports", "each port must be an object, e.g. {\"target\": 8080}");
            }
            int target = Validate.range("ports.target", Validate.required("ports.target", p.target()), 1, 65535, 0);
            if (target == AgentEndpoint.PORT) {
                throw ApiException.invalidField("ports.target", "port " + target + " is Hearth's agent's, in every computer");
            }
            int pub = Validate.range("ports.published", p.published(), 1, 65535, target);
            String protocol = p.protocol() == null ? "http1" : p.protocol();
            if (!protocol.equals("http1")) {
                throw ApiException.invalidField("ports.protocol", "only http1 is supported");
            }
            if (!published.add(pub)) {
                throw ApiException.invalidField("ports.published", "port " + pub + " is published twice");
            }
            ports.add(new Port(target, pub, protocol, Boolean.TRUE.equals(p.privateAccess())));
        }
        if (ports.size() > 32) {
            throw ApiException.invalidField("ports", "at most 32 ports");
        }
        return ports;
    }

    /** {@code auto_sleep_seconds}: absent keeps {@code current}, null turns it off, else 10 s to 7 days. */
    static Integer autoSleep(Patch<Integer> requested, Integer current) {
        return requested.apply(current, null, seconds -> Validate.range("auto_sleep_seconds", seconds, MIN_AUTO_SLEEP,
                7 * 24 * 3600, 0));
    }

    static final Resources DEFAULT_RESOURCES = new Resources(1.0, 512, Resources.defaultPids(512),
            10_240);

    /**
     * What the request sets over {@code current} (the defaults on a create). A pids limit left out follows
     * the memory when it was the memory's default.
     */
    /** On a new computer (a create, a fork): any size. */
    private static int newDisk(Integer requested, int current) {
        return Validate.range("resources.disk_mb", requested, 256, 1_048_576, current);
    }

    /** On a PATCH: a disk only grows (a file system in use cannot shrink safely). */
    private static int grownDisk(Integer requested, int current) {
        if (requested == null || requested == current) {
            return current;
        }
        int disk = Validate.range("resources.disk_mb", requested, 256, 1_048_576, current);
        if (disk < current) {
            throw ApiException.invalidField("resources.disk_mb", "a disk only grows: at least " + current);
        }
        return disk;
    }

    /** What a PATCH sets over the computer's {@code current} resources. */
    static Resources patched(ResourcesSpec r, Resources current) {
        var set = resources(r, current);
        return r == null ? current : new Resources(set.cpus(), set.memoryMb(), set.pids(),
                grownDisk(r.diskMb(), current.diskMb()));
    }

    static Resources resources(ResourcesSpec r, Resources current) {
        if (r == null) {
            return current;
        }
        int cores = Runtime.getRuntime().availableProcessors();
        double cpus = r.cpus() == null ? current.cpus() : r.cpus();
        if (!(cpus >= 0.1 && cpus <= cores)) {
            throw ApiException.invalidField("resources.cpus", "from 0.1 to " + cores + " (this host's cores)");
        }
        int memory = Validate.range("resources.memory_mb", r.memoryMb(), 64, 65536, current.memoryMb());
        boolean followsMemory = current.pids() == Resources.defaultPids(current.memoryMb());
        int pids = r.pids() == null && followsMemory ? Resources.defaultPids(memory)
                : r.pids() == null ? current.pids() : r.pids();
        int max = Resources.maxPids(memory);
        if (pids < 16 || pids > max) {
            throw ApiException.invalidField("resources.pids", "from 16 to " + max
                    + " (half the memory_mb: each process takes the computer's memory too)");
        }
        return new Resources(cpus, memory, pids, newDisk(r.diskMb(), current.diskMb()));
    }
}
