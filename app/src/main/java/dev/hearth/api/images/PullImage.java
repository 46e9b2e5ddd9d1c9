package dev.hearth.api.images;

import dev.hearth.api.Required;

public record PullImage(@Required String reference) {
}
