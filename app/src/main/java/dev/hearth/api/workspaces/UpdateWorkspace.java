package dev.hearth.api.workspaces;

import dev.hearth.api.Required;

public record UpdateWorkspace(@Required String name) {
}
