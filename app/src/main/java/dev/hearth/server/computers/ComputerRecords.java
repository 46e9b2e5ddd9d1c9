package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.operations.OperationError;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.pool.PoolState;
import dev.hearth.server.pool.PoolStore;
import dev.hearth.server.pool.PooledSandbox;
import dev.hearth.server.sandbox.Slot;
import dev.hearth.server.store.Constraints;
import dev.hearth.server.store.StoreLocks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * Computers as every part of this package reads and writes them: one transaction per write, the
 * clock at millisecond precision (what the store keeps), and the network slot a new one gets.
 */
final class ComputerRecords {
    private final Jdbi jdbi;
    private final ComputerStore store;
    private final Clock clock;
    private final PoolStore pool;
    private final LocalNode node;
    // Slots are chosen from two tables (computers and the warm pool): one chooser at a time here,
    // and one node at a time on a shared store (StoreLocks.SLOTS).
    private final Object slotChoice = new Object();

    ComputerRecords(Jdbi jdbi, ComputerStore store, Clock clock, LocalNode node) {
        this.node = node;
        this.jdbi = jdbi;
        this.store = store;
        this.clock = clock;
        this.pool = new PoolStore(store.node());
    }

    PoolStore pool() {
        return pool;
    }

    Jdbi jdbi() {
        return jdbi;
    }

    ComputerStore store() {
        return store;
    }

    /** By id, or by live name within the workspace; 404 otherwise. */
    Computer find(Workspace workspace, String ref) {
        return jdbi.withHandle(h -> store.find(h, workspace.id(), ref))
                .orElseThrow(() -> ApiException.notFound("computer " + ref));
    }

    /**
     * As {@link #find(Workspace, String)}, for work on its sandbox: which only its node has (another
     * node's answers 421 wrong_node, or 503 node_unavailable while that node is down).
     */
    Computer findHere(Workspace workspace, String ref) {
        return here(find(workspace, ref));
    }

    boolean runsHere(Computer c) {
        return node.owns(c.node());
    }

    /** The computer, when this node runs it (see {@link #findHere}). */
    Computer here(Computer c) {
        node.requireHere("computer " + c.name(), c.node());
        return c;
    }

    /** As stored now, deleted or not. */
    Computer current(String computerId) {
        return jdbi.withHandle(h -> store.find(h, computerId)).orElseThrow();
    }

    List<Computer> live() {
        return jdbi.withHandle(store::live);
    }

    Computer save(Computer c) {
        jdbi.useTransaction(h -> store.update(h, c));
        return c;
    }

    /** Notes how the main process of sandbox {@code exit.incarnation()} ended, if the computer still runs it. */
    void noteMainExit(String computerId, Computer.MainExit exit) {
        jdbi.useTransaction(h -> store.noteMainExit(h, computerId, exit));
    }

    Computer fail(Computer computer, String code, String message) {
        return save(computer.failed(new OperationError(code, message), now()));
    }

    /** Inserts with the lowest free network slot; a racing create that took it makes us try the next. */
    Computer insert(Computer draft) {
        node.requireTakingWork();
        for (int attempt = 0; attempt < 20; attempt++) {
            try {
                synchronized (slotChoice) {
                    return jdbi.inTransaction(h -> {
                        StoreLocks.hold(h, StoreLocks.SLOTS);
                        node.requireRoom(h, draft.settings().resources().memoryMb());
                        var c = draft.placed(store.node(), freeSlot(slotsTaken(h)));
                        store.insert(h, c);
                        return c;
                    });
                }
            } catch (JdbiException e) {
                if (!Constraints.isUniqueViolation(e)) {
                    throw e;
                }
                boolean nameTaken = jdbi.withHandle(h -> store.find(h, draft.workspace(), draft.name()))
                        .filter(c -> !c.deleted()).isPresent();
                if (nameTaken) {
                    throw nameTaken(draft.name());
                }
            }
        }
        throw new ApiException(ErrorCode.CONFLICT, "could not find a free network slot; retry");
    }

    /** A row for a sandbox about to boot for the warm pool, on the lowest free slot. */
    PooledSandbox reservePooled(String id, String image) {
        synchronized (slotChoice) {
            return jdbi.inTransaction(h -> {
                StoreLocks.hold(h, StoreLocks.SLOTS);
                var p = new PooledSandbox(id, image, null, freeSlot(slotsTaken(h)), PoolState.BOOTING, now());
                pool.insert(h, p);
                return p;
            });
        }
    }

    /**
     * The computer, on the pooled sandbox's slot, in the transaction that takes the sandbox out of the
     * pool; empty if another claim took it first. 409 when the name is taken (the sandbox stays pooled).
     */
    Optional<Computer> insertClaimed(Computer draft, PooledSandbox pooled) {
        node.requireTakingWork();
        return Constraints.unique(() -> jdbi.inTransaction(h -> {
            StoreLocks.hold(h, StoreLocks.SLOTS);
            node.requireRoom(h, draft.settings().resources().memoryMb());
            if (!pool.claim(h, pooled.id())) {
                return Optional.<Computer>empty();
            }
            var c = draft.placed(store.node(), pooled.slot());
            store.insert(h, c);
            return Optional.of(c);
        }), () -> nameTaken(draft.name()));
    }

    private Set<Integer> slotsTaken(Handle h) {
        var taken = new HashSet<>(store.slotsInUse(h));
        taken.addAll(pool.slots(h));
        return taken;
    }

    /** Saves a change of settings; 409 when the new name is taken. */
    Computer update(Computer changed) {
        return Constraints.unique(() -> jdbi.inTransaction(h -> {
            store.update(h, changed);
            return changed;
        }), () -> nameTaken(changed.name()));
    }

    Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    private static final Path NETNS = Path.of("/var/run/netns");

    private static ApiException nameTaken(String name) {
        return ApiException.conflict("a computer named " + name + " already exists in this workspace");
    }

    /**
     * The first slot no computer or pooled sandbox of the store holds, nor anything else on this
     * host: a network namespace of its name that the store knows nothing of is another install's
     * (a second Hearth beside this one, with a store of its own), whose addresses it would clash with.
     */
    private static Slot freeSlot(Set<Integer> used) {
        for (int i = Slot.FIRST; i <= Slot.LAST; i++) {
            if (Slot.usable(i) && !used.contains(i) && !Files.exists(NETNS.resolve(new Slot(i).netns()))) {
                return new Slot(i);
            }
        }
        throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "every network slot is in use");
    }
}
