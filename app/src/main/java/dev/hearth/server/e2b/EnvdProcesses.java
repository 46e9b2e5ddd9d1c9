package dev.hearth.server.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * envd's {@code process.Process} service on a computer's processes: every {@code Start} is a
 * background process of {@code /v1} (it outlives its client, until its deadline), its output
 * streamed from the process's kept output, followed.
 */
final class EnvdProcesses {
    private final V1 v1;

    EnvdProcesses(V1 v1) {
        this.v1 = v1;
    }

    /** {@code Start}: the process is started, then streamed as {@link #stream} does. */
    void start(EnvdCall call, JsonNode request, Connect.Stream out, Deadline deadline) throws IOException {
        var process = request.path("process");
        var command = new ArrayList<String>();
        command.add(process.path("cmd").asText());
        process.path("args").forEach(a -> command.add(a.asText()));
        var body = new LinkedHashMap<String, Object>();
        body.put("command", command);
        body.put("env", E2bJson.MAPPER.convertValue(process.path("envs"), Map.class));
        body.put("cwd", call.path(process.path("cwd").asText(null)));
        body.put("user", call.user());
        if (request.path("tag").isTextual()) {
            body.put("tag", request.path("tag").asText());
        }
        var size = request.path("pty").path("size");
        boolean pty = request.path("pty").isObject();
        if (pty) {
            body.put("pty", Map.of("cols", size.path("cols").asInt(80), "rows", size.path("rows").asInt(24)));
        }
        body.put("stdin", !request.path("stdin").isBoolean() || request.path("stdin").asBoolean());
        var started = v1.json("POST", call.computer("/processes"), call.authorization(), body);
        if (!started.ok()) {
            throw Connect.of(started.failure());
        }
        String pid = started.body().path("process").path("pid").asText();
        stream(call, pid, pty, false, out, deadline);
    }

    /** {@code Connect}: the process by pid (or tag), its output from now on. */
    void connect(EnvdCall call, JsonNode request, Connect.Stream out, Deadline deadline) throws IOException {
        var process = find(call, request.path("process"));
        stream(call, process.path("pid").asText(), process.path("pty").asBoolean(false), true, out, deadline);
    }

    /**
     * Sends {@code start} with the pid, then its output as {@code data} events and its end as an
     * {@code end} event. Past the deadline the process is killed and the stream ends with
     * {@code deadline_exceeded}. A follow that ends without the process's end (its sandbox went)
     * breaks the stream off, as a dropped connection to envd does.
     */
    private void stream(EnvdCall call, String pid, boolean pty, boolean fromNow, Connect.Stream out,
                        Deadline deadline) throws IOException {
        out.send(event("start", E2bJson.object().put("pid", Integer.parseInt(pid))));
        var follow = v1.follow(call.computer("/processes/" + pid + "/output?follow=true&encoding=base64"
                + (fromNow ? "&from=now" : "")), call.authorization());
        if (follow.status() != 200) {
            try (follow) {
                throw Connect.of(new V1.Answer(follow.status(), E2bJson.MAPPER.readTree(follow.body())).failure());
            }
        }
        var killed = new AtomicBoolean();
        deadline.onExpiry(() -> {
            killed.set(true);
            v1.json("POST", call.computer("/processes/" + pid + "/signal"), call.authorization(),
                    Map.of("signal", "KILL"));
        });
        try (follow; var lines = new BufferedReader(new InputStreamReader(follow.body(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                var node = E2bJson.MAPPER.readTree(line);
                if (node.has("stdout") || node.has("stderr")) {
                    String stream = node.has("stderr") ? "stderr" : pty ? "pty" : "stdout";
                    out.send(event("data", E2bJson.object().put(stream, node.path(node.has("stderr") ? "stderr"
                            : "stdout").asText())));
                } else if (node.has("exit_code")) {
                    deadline.cancel();
                    if (killed.get()) {
                        out.end(new Connect.Failure("deadline_exceeded", "the command ran past its deadline and was "
                                + "killed"));
                    } else {
                        out.send(event("end", end(node.path("exit_code").asInt())));
                        out.end(null);
                    }
                    return;
                } else if (node.has("error")) {
                    out.end(new Connect.Failure("internal", node.path("error").path("message").asText()));
                    return;
                }
            }
        } catch (IOException e) {
            follow.abort();
            throw e;
        } finally {
            deadline.cancel();
        }
        throw new IOException("the sandbox's process output ended without the process's end");
    }

    private static ObjectNode end(int code) {
        var end = E2bJson.object();
        end.put("exitCode", code);
        end.put("exited", true);
        end.put("status", "exit status " + code);
        if (code != 0) {
            end.put("error", "exit status " + code);
        }
        return end;
    }

    static ObjectNode event(String kind, ObjectNode body) {
        var message = E2bJson.object();
        message.putObject("event").set(kind, body);
        return message;
    }

    /** The process a selector names: {@code {pid}} or {@code {tag}}; not_found otherwise. */
    private JsonNode find(EnvdCall call, JsonNode selector) {
        if (selector.path("pid").canConvertToInt()) {
            var answer = v1.get(call.computer("/processes/" + selector.path("pid").asInt()), call.authorization());
            if (answer.status() == 404 || answer.status() == 400) {
                throw new Connect.Failure("not_found", "process " + selector.path("pid").asInt() + " not found");
            }
            if (!answer.ok()) {
                throw Connect.of(answer.failure());
            }
            var process = answer.body().path("process");
            if (!running(process)) { // envd forgets a process once it ends
                throw new Connect.Failure("not_found", "process " + selector.path("pid").asInt() + " has ended");
            }
            return process;
        }
        String tag = selector.path("tag").asText(null);
        for (var p : processes(call)) {
            if (tag != null && tag.equals(p.path("tag").asText()) && running(p)) {
                return p;
            }
        }
        throw new Connect.Failure("not_found", "no process with tag " + tag);
    }

    private static boolean running(JsonNode process) {
        return process.path("state").asText().equals("running");
    }

    private JsonNode processes(EnvdCall call) {
        var answer = v1.get(call.computer("/processes"), call.authorization());
        if (!answer.ok()) {
            throw Connect.of(answer.failure());
        }
        return answer.body().path("processes");
    }

    /** {@code List}: the running processes but the computer's main one. */
    JsonNode list(EnvdCall call) {
        var out = E2bJson.object();
        var list = out.putArray("processes");
        for (var p : processes(call)) {
            if (!running(p) || p.path("tag").asText().equals("main")) {
                continue;
            }
            var info = list.addObject();
            var config = info.putObject("config");
            var command = p.path("command");
            config.put("cmd", command.path(0).asText());
            var args = config.putArray("args");
            for (int i = 1; i < command.size(); i++) {
                args.add(command.get(i).asText());
            }
            config.putObject("envs");
            info.put("pid", p.path("pid").asInt());
            if (!p.path("tag").asText().isEmpty()) {
                info.put("tag", p.path("tag").asText());
            }
        }
        return out;
    }

    /** {@code SendInput}: stdin or pty bytes (base64) to the process. */
    JsonNode input(EnvdCall call, JsonNode request) {
        var input = request.path("input");
        String b64 = input.has("pty") ? input.path("pty").asText() : input.path("stdin").asText("");
        byte[] bytes = Base64.getDecoder().decode(b64);
        String pid = pid(call, request);
        check(v1.upload("POST", call.computer("/processes/" + pid + "/stdin"), call.authorization(),
                new ByteArrayInputStream(bytes)));
        return E2bJson.object();
    }

    /** {@code CloseStdin}. */
    JsonNode closeStdin(EnvdCall call, JsonNode request) {
        String pid = pid(call, request);
        check(v1.upload("POST", call.computer("/processes/" + pid + "/stdin?close=true"), call.authorization(),
                new ByteArrayInputStream(new byte[0])));
        return E2bJson.object();
    }

    /** {@code SendSignal}: SIGKILL or SIGTERM, by name or number. */
    JsonNode signal(EnvdCall call, JsonNode request) {
        var given = request.path("signal");
        String signal = given.asText().equals("SIGNAL_SIGTERM") || given.asInt() == 15 ? "TERM" : "KILL";
        String pid = pid(call, request);
        check(v1.json("POST", call.computer("/processes/" + pid + "/signal"), call.authorization(),
                Map.of("signal", signal)));
        return E2bJson.object();
    }

    /** {@code Update}: the pty's size. */
    JsonNode update(EnvdCall call, JsonNode request) {
        var size = request.path("pty").path("size");
        if (size.isMissingNode()) {
            return E2bJson.object();
        }
        String pid = pid(call, request);
        check(v1.json("POST", call.computer("/processes/" + pid + "/resize"), call.authorization(),
                Map.of("cols", size.path("cols").asInt(80), "rows", size.path("rows").asInt(24))));
        return E2bJson.object();
    }

    private String pid(EnvdCall call, JsonNode request) {
        return find(call, request.path("process")).path("pid").asText();
    }

    private static void check(V1.Answer answer) {
        if (answer.status() == 404) {
            throw new Connect.Failure("not_found", answer.failure().getMessage());
        }
        if (!answer.ok()) {
            throw Connect.of(answer.failure());
        }
    }
}
