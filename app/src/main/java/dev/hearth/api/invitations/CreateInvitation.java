package dev.hearth.api.invitations;

import dev.hearth.api.Required;

public record CreateInvitation(@Required String email, @Required String role) {
}
