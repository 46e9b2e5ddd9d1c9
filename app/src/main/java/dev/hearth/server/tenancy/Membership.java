package dev.hearth.server.tenancy;

/** A principal's place in a workspace: the workspace, and the role it holds there. */
public record Membership(Workspace workspace, Role role) {
}
