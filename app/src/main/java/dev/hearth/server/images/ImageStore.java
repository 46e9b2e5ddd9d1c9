package dev.hearth.server.images;

import static dev.hearth.server.store.Times.instant;
import static dev.hearth.server.store.Times.millis;

import dev.hearth.api.images.ImageState;
import dev.hearth.api.images.WorkspaceImage;
import dev.hearth.server.store.PageRequest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/** Persists which images each workspace pulled. */
public final class ImageStore {

    /** Records a pull in progress; answers the existing record when the reference is known already. */
    public WorkspaceImage begin(Handle h, WorkspaceImage image) {
        var existing = find(h, image.workspace(), image.reference());
        if (existing.isPresent()) {
            h.createUpdate("UPDATE images SET state = 'pulling', error = NULL WHERE id = :id")
                    .bind("id", existing.get().id()).execute();
            return find(h, image.workspace(), image.reference()).orElseThrow();
        }
        h.createUpdate("""
                INSERT INTO images (id, workspace, reference, state, created_at) VALUES (:id, :ws, :ref, 'pulling', :at)""")
                .bind("id", image.id()).bind("ws", image.workspace()).bind("ref", image.reference())
                .bind("at", millis(image.createdAt())).execute();
        return image;
    }

    public void finish(Handle h, String id, ImageState state, String digest, String error, Instant at) {
        h.createUpdate("UPDATE images SET state = :s, digest = COALESCE(:d, digest), error = :e, pulled_at = :at WHERE id = :id")
                .bind("id", id).bind("s", state.wire()).bind("d", digest).bind("e", error).bind("at", millis(at)).execute();
    }

    public Optional<WorkspaceImage> find(Handle h, String workspace, String idOrReference) {
        return h.createQuery("SELECT * FROM images WHERE workspace = :w AND (id = :v OR reference = :v)")
                .bind("w", workspace).bind("v", idOrReference).map(ImageStore::image).findOne();
    }

    public List<WorkspaceImage> page(Handle h, String workspace, PageRequest page) {
        return h.createQuery("SELECT * FROM images WHERE workspace = :w AND id > :after ORDER BY id LIMIT :n")
                .bind("w", workspace).bind("after", page.after().orElse("")).bind("n", page.limit() + 1)
                .map(ImageStore::image).list();
    }

    public void delete(Handle h, String id) {
        h.createUpdate("DELETE FROM images WHERE id = :id").bind("id", id).execute();
    }

    public List<String> digests(Handle h) {
        return h.createQuery("SELECT DISTINCT digest FROM images WHERE digest IS NOT NULL").mapTo(String.class).list();
    }

    private static WorkspaceImage image(ResultSet rs, StatementContext ctx)
            throws SQLException {
        return new WorkspaceImage(rs.getString("id"), rs.getString("workspace"), rs.getString("reference"),
                ImageState.of(rs.getString("state")), rs.getString("digest"), rs.getString("error"), instant(rs, "created_at"),
                instant(rs, "pulled_at"));
    }
}
