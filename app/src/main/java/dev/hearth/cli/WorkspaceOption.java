package dev.hearth.cli;

import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code --workspace} option of commands that act inside one workspace. */
final class WorkspaceOption {
    @Option(names = {"-w", "--workspace"}, paramLabel = "WORKSPACE", scope = ScopeType.INHERIT, defaultValue = "${env:HEARTH_WORKSPACE}",
            description = "workspace name or id (default: $HEARTH_WORKSPACE)")
    String workspace;

    String required() {
        if (workspace == null) {
            throw new IllegalArgumentException("name the workspace with --workspace or $HEARTH_WORKSPACE");
        }
        return workspace;
    }
}
