package dev.hearth.api.workspaces;

import dev.hearth.api.Required;

public record CreateWorkspace(@Required String name) {
}
