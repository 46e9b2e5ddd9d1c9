package dev.hearth.server.e2b;

import java.nio.file.Path;

/**
 * One call of the envd facade: the sandbox, the user it acts as (E2B's default {@code user}, or the
 * one its client named), and the Authorization its {@code /v1} calls carry.
 */
record EnvdCall(String sandboxId, String user, String authorization) {
    static final String DEFAULT_USER = "user";

    /** The user's home, as E2B's images lay them out. */
    String home() {
        return user.equals("root") ? "/root" : "/home/" + user;
    }

    /** A path as envd takes it: relative to the home, {@code ~} expanded, {@code ..} resolved. */
    String path(String given) {
        if (given == null || given.isEmpty()) {
            return home();
        }
        if (given.startsWith("~") && !given.equals("~") && !given.startsWith("~/")) {
            throw new E2bException(400, "cannot expand user-specific home dir: " + given + " (only ~ and ~/ are)");
        }
        String expanded = given.equals("~") ? home() : given.startsWith("~/") ? home() + given.substring(1) : given;
        var path = Path.of(expanded);
        return (path.isAbsolute() ? path : Path.of(home()).resolve(path)).normalize().toString();
    }

    /** {@code /v1}'s route of this sandbox's computer, then {@code rest}. */
    String computer(String rest) {
        return "/computers/" + sandboxId + rest;
    }
}
