package dev.hearth.server.agent;

/**
 * A file in a computer as the files API shows it: {@code type} is file, dir, symlink or other;
 * {@code mode} the permission bits in octal ("0644"); {@code modifiedAt} RFC 3339, UTC.
 */
public record FileInfo(String path, String name, String type, long size, String mode, String modifiedAt) {
}
