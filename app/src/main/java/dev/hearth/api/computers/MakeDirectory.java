package dev.hearth.api.computers;

import dev.hearth.api.Required;

/** {@code POST .../files/mkdir}: {@code owner}, a user of the image who owns what is made (default root). */
public record MakeDirectory(@Required String path, String owner) {
}
