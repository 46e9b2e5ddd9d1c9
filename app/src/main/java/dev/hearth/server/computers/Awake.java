package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.agent.AgentEndpoint;
import dev.hearth.server.agent.AgentException;
import dev.hearth.server.store.Ids;
import java.util.function.Function;

/**
 * Work on a computer's running sandbox (commands, files) with its gate held shared, so no sleep or
 * delete starts under it; a sleeping computer is woken first. Marks the computer used.
 */
final class Awake {
    private final ComputerRecords records;
    private final Gates gates;
    private final Activity activity;
    private final Sleeps sleeps;
    private final Agents agents;

    Awake(ComputerRecords records, Gates gates, Activity activity, Sleeps sleeps, Agents agents) {
        this.records = records;
        this.gates = gates;
        this.activity = activity;
        this.sleeps = sleeps;
        this.agents = agents;
    }

    /** A computer as read for work, and the gate's change count before the read (see {@link #run}). */
    record Read(Computer computer, long changesAtRead) {
    }

    /** Finds a live computer; counted before the read, by name 1 (odd) makes the work read it again under the gate. */
    Read find(Workspace workspace, String ref) {
        long changesAtRead = Ids.looksLikeId(ref) ? gates.changes(ref) : 1;
        var computer = records.findHere(workspace, ref);
        if (computer.deleted()) {
            throw ApiException.conflict("computer " + computer.name() + " is deleted");
        }
        return new Read(computer, changesAtRead);
    }

    <T> T run(Read read, Function<Computer, T> work) {
        String computerId = read.computer().id();
        for (int attempt = 0; ; attempt++) {
            var gate = gates.of(computerId);
            var shared = gate.lock().readLock();
            shared.lock();
            try {
                boolean unchanged = attempt == 0 && read.changesAtRead() % 2 == 0
                        && gate.changes().get() == read.changesAtRead();
                var c = unchanged ? read.computer() : records.current(computerId);
                if (c.is(ComputerState.READY) && !c.deleted()) {
                    gates.thaw(computerId);
                    used(computerId);
                    try {
                        return work.apply(c);
                    } finally {
                        used(computerId);
                    }
                }
                if (!c.allows(Move.WAKE) || attempt >= 3) {
                    throw ApiException.conflict("computer " + c.name() + " is " + (c.deleted() ? "deleted"
                            : c.state()) + ", not ready");
                }
            } finally {
                shared.unlock();
            }
            sleeps.wakeNow(computerId);
        }
    }

    /**
     * Work through the computer's agent, counted as a request
     * the computer serves, so auto-sleep waits for it; the agent's refusals become the API's errors.
     */
    <T> T onAgent(Read read, Function<AgentEndpoint, T> work) {
        return run(read, c -> {
            var agent = agents.required(c);
            activity.requestBegins(c.id());
            try {
                return work.apply(agent);
            } catch (AgentException e) {
                throw Agents.refusal(e);
            } finally {
                activity.requestEnds(c.id());
            }
        });
    }

    void used(String computerId) {
        activity.used(computerId, records.now());
    }
}
