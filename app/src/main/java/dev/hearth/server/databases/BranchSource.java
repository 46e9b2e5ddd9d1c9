package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import dev.hearth.api.checkpoints.Checkpoint;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.api.checkpoints.SourceType;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.checkpoints.CheckpointStore;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * What a branch is made from: a ready checkpoint of a database in the same workspace, and that
 * database, whose names inside the cluster and PostgreSQL version the branch keeps.
 */
record BranchSource(Checkpoint checkpoint, Database database) {
    /** The checkpoint {@code ref} names (its id, or DATABASE/NAME), if a branch may be made from it. */
    static BranchSource find(Jdbi jdbi, DatabaseStore store, CheckpointStore checkpoints, Workspace workspace,
                             String ref) {
        var checkpoint = jdbi.withHandle(h -> checkpoint(h, store, checkpoints, workspace, ref))
                .orElseThrow(() -> ApiException.invalidField("from_checkpoint", "no checkpoint " + ref
                        + " of a database in this workspace (give its id, or DATABASE/NAME)"));
        if (!checkpoint.is(CheckpointState.READY)) {
            throw ApiException.invalidField("from_checkpoint", "checkpoint " + checkpoint.name() + " is "
                    + checkpoint.state().wire() + "; only a ready checkpoint can be branched from");
        }
        var source = jdbi.withHandle(h -> store.find(h, checkpoint.source())).orElseThrow();
        return new BranchSource(checkpoint, source);
    }

    /** The source's version, which a branch keeps; asking for another is an error. */
    String version(String requested) {
        String kept = database.placement().version();
        if (requested != null && !requested.equals(kept)) {
            throw ApiException.invalidField("version", "a branch keeps its checkpoint's version, " + kept);
        }
        return kept;
    }

    /**
     * The branch's disk: as asked, or the source's; never smaller than what the checkpoint holds, nor
     * than the disk it is a copy of ({@code copiedMb}, 0 for a checkpoint of files): a disk only grows.
     */
    int diskMb(Integer requested, long copiedMb) {
        int kept = database.settings().diskMb();
        int mb = Validate.range("disk_mb", requested, DatabaseService.MIN_DISK_MB, DatabaseService.MAX_DISK_MB,
                kept);
        long neededMb = (checkpoint.sizeBytes() >> 20) + 1;
        if (neededMb > mb) {
            throw ApiException.invalidField("disk_mb", "checkpoint " + checkpoint.name() + " holds " + neededMb
                    + " MB; the branch's disk must be at least that");
        }
        if (copiedMb > mb) {
            throw ApiException.invalidField("disk_mb", "checkpoint " + checkpoint.name() + " is a copy of a disk of "
                    + copiedMb + " MB; the branch's disk must be at least that");
        }
        return mb;
    }

    private static Optional<Checkpoint> checkpoint(Handle h, DatabaseStore store, CheckpointStore checkpoints,
                                                   Workspace workspace, String ref) {
        int slash = ref.indexOf('/');
        Optional<Checkpoint> found;
        if (slash > 0) {
            found = store.find(h, workspace.id(), ref.substring(0, slash)).filter(d -> !d.isDeleted())
                    .flatMap(d -> checkpoints.find(h, d.id(), ref.substring(slash + 1)));
        } else {
            found = checkpoints.find(h, ref);
        }
        return found.filter(c -> c.workspace().equals(workspace.id()) && c.deletedAt() == null
                && c.sourceType() == SourceType.DATABASE);
    }
}
