package dev.hearth.server.sandbox.runsc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hearth.api.Json;
import dev.hearth.server.sandbox.SandboxSpec;
import java.util.List;
import java.util.Map;

/**
 * The OCI runtime spec (a bundle's config.json) for a sandbox and its process part.
 */
final class OciSpec {
    private static final List<String> CAPABILITIES = List.of("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER",
            "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
            "CAP_NET_RAW", "CAP_SYS_CHROOT", "CAP_MKNOD", "CAP_AUDIT_WRITE", "CAP_SETFCAP");

    private OciSpec() {
    }

    static ObjectNode of(SandboxSpec spec, String cgroupsPath) {
        var s = Json.mapper().createObjectNode().put("ociVersion", "1.0.2").put("hostname", spec.hostname());
        var process = process(spec.args(), spec.env(), spec.cwd(), spec.namedLater());
        // gVisor counts processes per user inside the sandbox and answers EAGAIN past this; execs inherit it.
        process.putArray("rlimits").addObject().put("type", "RLIMIT_NPROC").put("hard", spec.pids())
                .put("soft", spec.pids());
        s.set("process", process);
        s.putObject("root").put("path", spec.rootfs().toString()).put("readonly", false);
        mounts(s.putArray("mounts"), spec);
        linux(s.putObject("linux"), spec, cgroupsPath);
        return s;
    }

    private static void mounts(ArrayNode mounts, SandboxSpec spec) {
        mounts.addObject().put("destination", "/proc").put("type", "proc").put("source", "proc");
        mounts.addObject().put("destination", "/dev").put("type", "tmpfs").put("source", "tmpfs");
        mounts.addObject().put("destination", "/sys").put("type", "sysfs").put("source", "sysfs").putArray("options").add("ro");
        mounts.addObject().put("destination", "/data").put("type", "bind").put("source", spec.dataDir().toString())
                .putArray("options").add("rbind").add("rw");
        mounts.addObject().put("destination", "/.hearth").put("type", "bind").put("source", spec.toolsDir().toString())
                .putArray("options").add("rbind").add("ro");
        for (var file : spec.files()) {
            mounts.addObject().put("destination", file.destination()).put("type", "bind")
                    .put("source", file.source().toString()).putArray("options").add("rbind").add("ro");
        }
    }

    /** Namespaces (the network one is the slot's), limits, and the cgroup Cgroups prunes. */
    private static void linux(ObjectNode linux, SandboxSpec spec, String cgroupsPath) {
        var namespaces = linux.putArray("namespaces");
        for (String type : List.of("pid", "ipc", "uts", "mount")) {
            namespaces.addObject().put("type", type);
        }
        namespaces.addObject().put("type", "network").put("path", "/var/run/netns/" + spec.network().netns());
        var resources = linux.putObject("resources");
        resources.putObject("memory").put("limit", spec.memoryBytes());
        resources.putObject("cpu").put("quota", Math.round(spec.cpus() * 100_000)).put("period", 100_000);
        resources.putObject("pids").put("limit", hostTasks(spec.pids()));
        linux.put("cgroupsPath", cgroupsPath);
    }

    /**
     * The host's limit on the sandbox's tasks, a backstop for a sandbox gone wrong: gVisor runs a computer's
     * processes on its own threads, a few per process at most, and meeting this kills the whole sandbox.
     */
    static int hostTasks(int pids) {
        return 2 * pids + 256;
    }

    /** The {@code pids} a host task limit was made from. */
    static int pidsOf(long hostTasks) {
        return (int) ((hostTasks - 256) / 2);
    }

    /**
     * A process as root with Docker's default capabilities; {@code setsHostname}: and CAP_SYS_ADMIN,
     * which a pooled agent drops once it named its computer.
     */
    private static ObjectNode process(List<String> args, Map<String, String> env, String cwd, boolean setsHostname) {
        var p = Json.mapper().createObjectNode().put("terminal", false).put("cwd", cwd);
        p.putObject("user").put("uid", 0).put("gid", 0);
        var argv = p.putArray("args");
        args.forEach(argv::add);
        var envArray = p.putArray("env");
        env.forEach((k, v) -> envArray.add(k + "=" + v));
        var caps = p.putObject("capabilities");
        for (String set : List.of("bounding", "effective", "permitted")) {
            var list = caps.putArray(set);
            CAPABILITIES.forEach(list::add);
            if (setsHostname) {
                list.add("CAP_SYS_ADMIN");
            }
        }
        return p;
    }
}
