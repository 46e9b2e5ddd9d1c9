package dev.hearth.server.agent;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * The JSON head of what the agent is asked to run: one shape for exec, the terminal and processes
 * (the agent's one decoder, agent/spec.c, reads the fields each route takes). Absent fields are left
 * out; {@code env} is the whole environment as {@code NAME=value} lines; {@code user} is a name or
 * uid of the computer's image (the agent's own, root, when absent).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunHead(List<String> command, List<String> env, String cwd, String user, String tag, Long timeoutMs,
                      Integer cols, Integer rows, Boolean stdin, Boolean pty) {

    public static List<String> env(Map<String, String> env) {
        return env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
    }

    /** An exec's head. */
    public static RunHead exec(List<String> command, Map<String, String> env, String cwd, String user, long timeoutMs) {
        return new RunHead(command, env(env), cwd, user, null, timeoutMs, null, null, null, null);
    }

    /** A terminal's head: its first window. */
    public static RunHead terminal(List<String> command, Map<String, String> env, String cwd, String user, int cols,
                                   int rows) {
        return new RunHead(command, env(env), cwd, user, null, null, cols, rows, null, null);
    }
}
