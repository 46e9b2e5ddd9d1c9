package dev.hearth.api.computers;

import dev.hearth.api.Required;

/**
 * A file in a computer as the files API shows it: {@code type} is file, dir, symlink or other;
 * {@code mode} the permission bits in octal ("0644"); {@code modifiedAt} RFC 3339, UTC; who owns it
 * (names from the image's /etc/passwd and /etc/group, else the numbers), its permissions as
 * {@code ls -l} shows them, where a symlink points (null for anything else), and its metadata (its
 * {@code user.e2b.KEY} extended attributes, as E2B's envd keeps them).
 */
public record FileInfo(@Required String path, @Required String name, @Required String type, long size, String mode, String modifiedAt, int uid,
                       int gid, String owner, String group, String permissions, String symlinkTarget,
                       java.util.Map<String, String> metadata) {
}
