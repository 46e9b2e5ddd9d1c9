package dev.hearth.server.computers;

import dev.hearth.api.computers.ComputerState;
import dev.hearth.server.sandbox.Slot;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computers by address, for the resolver and the waker: whose address a query or connection comes
 * from, the address a name stands for within a workspace, and a wake for a connection to a
 * sleeping computer (only one of the asker's own workspace).
 */
public final class ComputerAddresses {
    private static final Logger LOG = LoggerFactory.getLogger(ComputerAddresses.class);

    private final ComputerRecords records;
    private final Sleeps sleeps;
    private final Gates gates;

    ComputerAddresses(ComputerRecords records, Sleeps sleeps, Gates gates) {
        this.records = records;
        this.sleeps = sleeps;
        this.gates = gates;
    }

    /** The workspace of the live computer at this sandbox address. */
    public Optional<String> workspaceAt(InetAddress address) {
        return at(address).map(Computer::workspace);
    }

    /** The sandbox address of a live computer of the workspace, on this node or another, by name. */
    public Optional<InetAddress> addressOf(String workspace, String name) {
        return records.jdbi().withHandle(h -> records.store().find(h, workspace, name))
                .filter(c -> !c.deleted() && c.name().equals(name))
                .map(c -> address(c.slot().sandboxAddress()));
    }

    /** Every live computer of another node: its workspace, its sandbox address and its node's name. */
    public List<Elsewhere> elsewhere() {
        return records.jdbi().withHandle(h -> records.store().elsewhere(h)).stream()
                .map(e -> new Elsewhere(e.workspace(), address(new Slot(e.slot()).sandboxAddress()), e.node()))
                .toList();
    }

    /** A computer of another node, as {@link #elsewhere} lists it. */
    public record Elsewhere(String workspace, InetAddress address, String node) {
    }

    /**
     * Wakes (or thaws, if it froze while idle) the computer a connection is meant for, if the asker is
     * a computer of the same workspace.
     */
    public boolean wakeFor(InetAddress asker, InetSocketAddress target) {
        // The asker may be another node's computer, come through the overlay.
        var from = Slot.ofSandboxAddress(asker)
                .flatMap(slot -> records.jdbi().withHandle(h -> records.store().onSlot(h, slot.index())));
        var to = at(target.getAddress());
        if (from.isEmpty() || to.isEmpty() || !from.get().workspace().equals(to.get().workspace())) {
            return false;
        }
        var c = to.get();
        if (c.is(ComputerState.READY)) {
            if (gates.thaw(c.id())) {
                LOG.debug("computer {} ({}): thawed by a connection to port {} from computer {}", c.name(), c.id(),
                        target.getPort(), from.get().name());
            }
            return true;
        }
        LOG.info("computer {} ({}): woken by a connection to port {} from computer {}", c.name(), c.id(),
                target.getPort(), from.get().name());
        return sleeps.wakeNow(c.id()).is(ComputerState.READY);
    }

    private Optional<Computer> at(InetAddress address) {
        return Slot.ofSandboxAddress(address)
                .flatMap(slot -> records.jdbi().withHandle(h -> records.store().onSlot(h, slot.index())))
                .filter(records::runsHere);
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
