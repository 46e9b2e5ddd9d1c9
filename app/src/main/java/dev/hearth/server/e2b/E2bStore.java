package dev.hearth.server.e2b;

import static dev.hearth.server.store.Times.millis;

import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** Persists what E2B needs beside a computer made through its API. */
final class E2bStore {
    /** A sandbox: its computer, workspace, the API key that made it, its template, whether traffic resumes it. */
    record Sandbox(String computer, String workspace, String apiKey, String template, boolean autoResume) {
    }

    void insert(Handle h, Sandbox s, Instant now) {
        h.createUpdate("""
                INSERT INTO e2b_sandboxes (computer, workspace, api_key, template, auto_resume, created_at)
                VALUES (:computer, :workspace, :key, :template, :resume, :at)""")
                .bind("computer", s.computer()).bind("workspace", s.workspace()).bind("key", s.apiKey())
                .bind("template", s.template()).bind("resume", s.autoResume()).bind("at", millis(now)).execute();
    }

    Optional<Sandbox> find(Handle h, String computer) {
        return h.createQuery("SELECT * FROM e2b_sandboxes WHERE computer = :c").bind("c", computer)
                .map((rs, ctx) -> new Sandbox(rs.getString("computer"), rs.getString("workspace"),
                        rs.getString("api_key"), rs.getString("template"), rs.getBoolean("auto_resume")))
                .findOne();
    }
}
