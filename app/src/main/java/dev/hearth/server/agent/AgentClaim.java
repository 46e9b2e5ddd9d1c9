package dev.hearth.server.agent;

import java.util.List;

/** What a pooled agent is told at its claim: {@code env} as NAME=VALUE, {@code restart} on the wire. */
public record AgentClaim(List<String> command, List<String> env, String restart, String hostname) {
}
