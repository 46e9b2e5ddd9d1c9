package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.JsonTrees;
import dev.hearth.client.HearthClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code hearth computers}: sandboxed computers in a workspace. */
@Command(name = "computers", addMethodSubcommands = false, aliases = "cmp", description = "Manage computers (gVisor sandboxes).")
final class ComputersCommand {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Command(name = "create", description = "Create a computer; waits until it is ready unless --no-wait.")
    int create(@Parameters(paramLabel = "NAME", description = "the new computer's name") String name,
               @Option(names = "--image", paramLabel = "IMAGE", description = "image reference (default hearth/busybox)") String image,
               @Option(names = "--from-checkpoint", paramLabel = "ID|COMPUTER/NAME",
                       description = "start from a checkpoint: its memory, overlay and /data") String fromCheckpoint,
               @Option(names = "--env", paramLabel = "NAME=VALUE", description = "an environment variable of the computer") List<String> env,
               @Option(names = "--secret", paramLabel = "NAME=VARIABLE", description = "an env var read from a variable") List<String> secrets,
               @Option(names = "--port", paramLabel = "TARGET[:PUBLISHED]", description = "serve the computer's TARGET port on the router, published as PUBLISHED (default 80, then TARGET)") List<String> ports,
               @Mixin ResourceOptions resources,
               @Option(names = "--protected", description = "refuse deletes until unprotected") boolean protect,
               @Option(names = "--auto-sleep", paramLabel = "SECONDS", description = "sleep after this long idle") Integer autoSleep,
               @Option(names = "--freeze-when-idle", negatable = true, description = "frozen (no CPU, still ready) while idle; --no-freeze-when-idle keeps its timers running (default: true)") Boolean freeze,
               @Mixin NetworkOptions network,
               @Mixin LaunchOptions launch,
               @Option(names = "--no-wait", description = "answer at once with the operation instead of waiting for it") boolean noWait,
               @Parameters(index = "1..*", paramLabel = "COMMAND", description = "after --: the main process, instead of the image's cmd") List<String> command) {
        var client = cli.client();
        // Only what was given: a computer made from a checkpoint takes the rest from its source.
        var body = new LinkedHashMap<String, Object>(Map.of("name", name));
        if (fromCheckpoint != null) {
            body.put("from_checkpoint", checkpointId(client, fromCheckpoint));
        }
        if (image != null || fromCheckpoint == null) {
            body.put("image", image == null ? "hearth/busybox" : image);
        }
        if (autoSleep != null) {
            body.put("auto_sleep_seconds", autoSleep);
        }
        if (freeze != null) {
            body.put("freeze_when_idle", freeze);
        }
        if (env != null || secrets != null) {
            body.put("env", env(env, secrets));
        }
        if (ports != null) {
            body.put("ports", ports(ports));
        }
        if (protect) {
            body.put("protected", true);
        }
        network.body().ifPresent(n -> body.put("network", n));
        resources.body().ifPresent(r -> body.put("resources", r));
        launch.into(body, command);
        var answer = client.create("/workspaces/" + workspace.required() + "/computers", body);
        if (!noWait && answer.path("operations").size() > 0) {
            OperationsCommand.follow(client, answer.path("operations").get(0).asText(), cli.context.err());
            answer = client.get("/computers/" + answer.path("computer").path("id").asText());
        }
        show(answer);
        return answer.path("computer").path("state").asText().equals("failed") ? 1 : 0;
    }

    @Command(name = "list", description = "List computers.")
    int list() {
        var answer = Cli.everyPage(cli.client(), "/workspaces/" + workspace.required() + "/computers", "computers");
        cli.print(answer, () -> table(answer.path("computers")));
        return 0;
    }

    @Command(name = "get", description = "Show a computer.")
    int get(@Parameters(paramLabel = "NAME", description = "the computer's name or id") String name) {
        show(cli.client().get(path(name)));
        return 0;
    }

    @Command(name = "update", description = "Change a computer's env, name, protection, auto-sleep, freezing while idle, network (at once) or resources, command, entrypoint and restart (from its next start).")
    int update(@Parameters(paramLabel = "NAME", description = "the computer's name or id") String name,
               @Option(names = "--env", paramLabel = "NAME=VALUE", description = "an environment variable of the computer") List<String> env,
               @Option(names = "--secret", paramLabel = "NAME=VARIABLE", description = "an env var read from a variable") List<String> secrets,
               @Option(names = "--unset", paramLabel = "NAME", description = "remove an env var") List<String> unset,
               @Option(names = "--rename", paramLabel = "NEW_NAME", description = "the computer's new name") String rename,
               @Option(names = "--protected", negatable = true, description = "refuse deletes until unprotected") Boolean protect,
               @Option(names = "--auto-sleep", paramLabel = "SECONDS|never", description = "sleep after this long idle") String autoSleep,
               @Option(names = "--freeze-when-idle", negatable = true, description = "frozen (no CPU, still ready) while idle, or not") Boolean freeze,
               @Mixin NetworkOptions network,
               @Mixin ResourceOptions resources,
               @Mixin LaunchOptions launch,
               @Parameters(index = "1..*", paramLabel = "COMMAND", description = "after --: a new main process") List<String> command) {
        var body = new LinkedHashMap<String, Object>();
        if (autoSleep != null) {
            body.put("auto_sleep_seconds", autoSleep.equals("never") ? null : Integer.valueOf(autoSleep));
        }
        if (freeze != null) {
            body.put("freeze_when_idle", freeze);
        }
        var changes = env(env, secrets);
        if (unset != null) {
            unset.forEach(n -> changes.put(n, null));
        }
        if (!changes.isEmpty()) {
            body.put("env", changes);
        }
        if (rename != null) {
            body.put("name", rename);
        }
        if (protect != null) {
            body.put("protected", protect);
        }
        network.body().ifPresent(n -> body.put("network", n));
        resources.body().ifPresent(r -> body.put("resources", r));
        launch.into(body, command);
        show(cli.client().patch(path(name), body));
        return 0;
    }

    @Command(name = "sleep", description = "Put a computer to sleep (memory kept on disk); waits unless --no-wait.")
    int sleep(@Parameters(paramLabel = "NAME", description = "the computer's name or id") String name, @Option(names = "--no-wait", description = "answer at once with the operation instead of waiting for it") boolean noWait) {
        var client = cli.client();
        var answer = client.post("/computers/" + name + "/sleep?workspace=" + workspace.required(), Map.of());
        if (!noWait && answer.path("operations").size() > 0) {
            OperationsCommand.follow(client, answer.path("operations").get(0).asText(), cli.context.err());
            answer = client.get(path(name));
        }
        show(answer);
        return 0;
    }

    @Command(name = "wake", description = "Wake a sleeping computer (exec wakes it too).")
    int wake(@Parameters(paramLabel = "NAME", description = "the computer's name or id") String name) {
        show(cli.client().post("/computers/" + name + "/wake?workspace=" + workspace.required(), Map.of()));
        return 0;
    }

    @Command(name = "restore", description = "Roll a computer back to one of its checkpoints (memory, overlay and /data).")
    int restore(@Parameters(paramLabel = "NAME", description = "the computer's name or id") String name,
                @Parameters(paramLabel = "CHECKPOINT", description = "the checkpoint's id or name") String checkpoint) {
        show(cli.client().post("/computers/" + name + "/restore?workspace=" + workspace.required(),
                Map.of("checkpoint", checkpoint)));
        return 0;
    }

    @Command(name = "metrics", description = "Show the CPU, memory and disk a computer uses now.")
    int metrics(@Parameters(paramLabel = "NAME", description = "the computer's name or id") String name) {
        var answer = cli.client().get("/computers/" + name + "/metrics?workspace=" + workspace.required());
        cli.print(answer, () -> {
            var m = answer.path("metrics");
            var table = new Table("STATE", "CPU_SECONDS", "MEMORY_MB", "PROCESSES", "DISK_USED_MB", "DISK_MB");
            table.row(m.path("state").asText(), m.path("cpu_seconds").isNull() ? "-"
                            : String.format("%.2f", m.path("cpu_seconds").asDouble()),
                    megabytes(m.path("memory_bytes")), m.path("processes").isNull() ? "-" : m.path("processes").asText(),
                    megabytes(m.path("disk_used_bytes")), megabytes(m.path("disk_size_bytes")));
            table.print(cli.out());
        });
        return 0;
    }

    private static String megabytes(JsonNode bytes) {
        return bytes.isNull() || bytes.isMissingNode() ? "-" : Long.toString(bytes.asLong() >> 20);
    }

    /** A checkpoint id as given, or looked up from COMPUTER/NAME. */
    private String checkpointId(HearthClient client, String ref) {
        int slash = ref.indexOf('/');
        if (slash < 0) {
            return ref;
        }
        return client.get("/computers/" + ref.substring(0, slash) + "/checkpoints/" + ref.substring(slash + 1)
                + "?workspace=" + workspace.required()).path("checkpoint").path("id").asText();
    }

    @Command(name = "delete", description = "Delete a computer, its /data included.")
    int delete(@Parameters(paramLabel = "NAME", description = "the computer's name or id") String name) {
        show(cli.client().delete(path(name)));
        return 0;
    }

    private String path(String name) {
        return "/computers/" + name + "?workspace=" + workspace.required();
    }

    static Map<String, Object> env(List<String> literals, List<String> secrets) {
        var env = new LinkedHashMap<String, Object>();
        for (String kv : literals == null ? List.<String>of() : literals) {
            env.put(key(kv), kv.substring(kv.indexOf('=') + 1));
        }
        for (String kv : secrets == null ? List.<String>of() : secrets) {
            env.put(key(kv), Map.of("secret", kv.substring(kv.indexOf('=') + 1)));
        }
        return env;
    }

    private static String key(String kv) {
        int eq = kv.indexOf('=');
        if (eq < 1) {
            throw new IllegalArgumentException("expected NAME=VALUE, got " + kv);
        }
        return kv.substring(0, eq);
    }

    private static List<Map<String, Object>> ports(List<String> ports) {
        var list = new ArrayList<Map<String, Object>>();
        for (String p : ports == null ? List.<String>of() : ports) {
            String[] parts = p.split(":", 2);
            try {
                var port = new LinkedHashMap<String, Object>(Map.of("target", Integer.parseInt(parts[0])));
                if (parts.length == 2) {
                    port.put("published", Integer.parseInt(parts[1]));
                }
                list.add(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--port takes TARGET or TARGET:PUBLISHED, got " + p);
            }
        }
        return list;
    }

    private void show(JsonNode answer) {
        cli.print(answer, () -> table(JsonTrees.array().add(answer.path("computer"))));
    }

    /** "sleeping (warm)": how deeply it sleeps tells how fast it wakes; "ready (frozen)": frozen while idle. */
    private static String state(JsonNode c) {
        var mode = c.path("sleep_mode");
        String depth = mode.isTextual() ? mode.asText() : c.path("frozen_since").isTextual() ? "frozen" : null;
        return c.path("state").asText() + (depth != null ? " (" + depth + ")" : "");
    }

    private void table(Iterable<JsonNode> rows) {
        var table = new Table("NAME", "ID", "STATE", "IMAGE", "URL", "NETWORK", "ERROR");
        rows.forEach(c -> table.row(c.path("name").asText(), c.path("id").asText(), state(c), c.path("image").asText(), c.path("url").asText(), NetworkOptions.summary(c.path("network")),
                c.path("error").isNull() ? "-" : c.path("error").path("message").asText()));
        table.print(cli.out());
    }
}
