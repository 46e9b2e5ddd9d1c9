package dev.hearth.server.network;

import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.Slot;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Computers' network rules, in one nftables table of Hearth's own ({@code inet hearth}): NAT for
 * their way out, what each may reach, their workspace's computers and databases, Hearth's services
 * address, and nothing of the host. Rules are keyed by each computer's host-side veth, so they hold
 * across sleep, wake and restores; every change is one atomic batch ({@link Nft}). Rules that
 * other software installed are never touched.
 */
public final class Firewall {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    /** A computer's rules: its slot (veth and address), its workspace, and its policy. */
    public record ComputerRule(Slot slot, String workspace, NetworkPolicy policy) {
    }

    /**
     * A database reached from its workspace's computers at {@code vip}: 5432 to its wake proxy's
     * {@code port}, 6432 to the pooler's {@code poolerPort}, both on the services address.
     */
    public record DatabaseRule(String workspace, Cidr vip, int port, int poolerPort) {
    }

    private final String table;
    private final NftText text;

    public Firewall(String table, Services services, NetworkSettings settings) {
        this.table = table;
        this.text = new NftText(table, services, settings);
    }

    /** Replaces the whole table with the rules of these computers and databases (on start). */
    public void reset(Collection<ComputerRule> computers, Collection<DatabaseRule> databases,
                      Collection<ComputerRule> asleep) {
        var batch = new StringBuilder();
        batch.append("add table inet ").append(table).append('\n')
                .append("delete table inet ").append(table).append('\n')
                .append(text.base());
        computers.forEach(c -> batch.append(text.putComputer(c)));
        databases.forEach(d -> batch.append(text.putDatabase(d)));
        asleep.forEach(c -> batch.append(text.asleep(c, true)));
        apply(batch);
    }

    /** Adds a computer's rules, or replaces them (a changed policy applies at once). */
    public void put(ComputerRule computer) {
        apply(new StringBuilder(text.putComputer(computer)));
    }

    public void remove(ComputerRule computer) {
        apply(new StringBuilder(text.removeComputer(computer)));
    }

    /** A sleeping computer's new connections go to the waker instead, which wakes it first. */
    public void asleep(ComputerRule computer, boolean asleep) {
        apply(new StringBuilder(text.asleep(computer, asleep)));
    }

    public void putDatabase(DatabaseRule database) {
        apply(new StringBuilder(text.putDatabase(database)));
    }

    public void removeDatabase(DatabaseRule database) {
        apply(new StringBuilder(text.removeDatabase(database)));
    }

    /** Sends a database's 5432 elsewhere on the services address (its cluster while awake): one batch. */
    public void routeDatabase(DatabaseRule from, DatabaseRule to) {
        apply(new StringBuilder(text.removeDatabase(from)).append(text.putDatabase(to)));
    }

    /** Removes the table (tests and benches clean up after themselves with it). */
    public void drop() {
        apply(new StringBuilder("add table inet " + table + "\ndelete table inet " + table + "\n"));
    }

    /** The rules as nft lists them, for diagnosis and tests. */
    public String list() {
        return Commands.run(List.of("nft", "list", "table", "inet", table), LIMIT).stdout();
    }

    private static void apply(StringBuilder batch) {
        Nft.apply(batch.toString());
    }

    static String set(Collection<Cidr> cidrs) {
        return cidrs.stream().map(Cidr::toString).collect(Collectors.joining(", ", "{ ", " }"));
    }
}
