package dev.hearth.api.computers;

import dev.hearth.api.Required;
import dev.hearth.api.SchemaName;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /computers/{cmp}/exec}. {@code encoding}: "utf-8" (the default) or "base64", which
 * takes stdin and gives stdout and stderr base64-encoded, for bytes that are not text. {@code user}:
 * a user of the image (name, uid or uid:gid) to run as; its home is the default {@code cwd}.
 */
@SchemaName("Exec")
public record ExecRequest(@Required List<String> command, Map<String, String> env, String cwd, String stdin,
                          Integer timeoutSeconds, String encoding, String user) {
}
