package dev.hearth.server.network;

import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.Slot;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
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

    /** A computer of the workspace that runs elsewhere (another node), at its sandbox address. */
    public record RemoteMember(String workspace, InetAddress address) {
    }

    private final String table;
    private final NftText text;
    private final Rules rules = new Rules();
    private final OwnTable own;

    /** {@code overlay}: the device other nodes' computers arrive through ({@link Overlay}), made or not. */
    public Firewall(String table, Services services, NetworkSettings settings, String overlay) {
        this.table = table;
        this.text = new NftText(table, services, settings, overlay);
        this.own = new OwnTable("inet " + table,
                () -> whole(rules.computers(), rules.databases(), rules.asleep(), rules.remote()));
    }

    /** Replaces the whole table with the rules of these computers and databases (on start). */
    public void reset(Collection<ComputerRule> computers, Collection<DatabaseRule> databases,
                      Collection<ComputerRule> asleep) {
        own.replace(() -> rules.replace(computers, databases, asleep));
    }

    /** Adds a computer's rules, or replaces them (a changed policy applies at once). */
    public void put(ComputerRule computer) {
        own.change(text.putComputer(computer), () -> rules.put(computer));
    }

    public void remove(ComputerRule computer) {
        own.change(text.removeComputer(computer), () -> rules.remove(computer));
    }

    /** A sleeping computer's new connections go to the waker instead, which wakes it first. */
    public void asleep(ComputerRule computer, boolean asleep) {
        own.change(text.asleep(computer, asleep), () -> rules.asleep(computer, asleep));
    }

    /**
     * Lets this node's computers reach these computers of their workspaces elsewhere, and be reached
     * from them, and no others from elsewhere: one batch of what changed.
     */
    public void remoteMembers(Set<RemoteMember> now) {
        var was = rules.remote();
        var batch = new StringBuilder();
        now.stream().filter(m -> !was.contains(m)).forEach(m -> batch.append(text.remote(m, true)));
        was.stream().filter(m -> !now.contains(m)).forEach(m -> batch.append(text.remote(m, false)));
        if (!batch.isEmpty()) {
            own.change(batch.toString(), () -> rules.remote(now));
        }
    }

    public void putDatabase(DatabaseRule database) {
        own.change(text.putDatabase(database), () -> rules.put(database));
    }

    public void removeDatabase(DatabaseRule database) {
        own.change(text.removeDatabase(database), () -> rules.remove(database));
    }

    /** Sends a database's 5432 elsewhere on the services address (its cluster while awake): one batch. */
    public void routeDatabase(DatabaseRule from, DatabaseRule to) {
        own.change(text.removeDatabase(from) + text.putDatabase(to), () -> {
            rules.remove(from);
            rules.put(to);
        });
    }

    /** Removes the table (tests and benches clean up after themselves with it). */
    public void drop() {
        own.drop(() -> {
            rules.replace(List.of(), List.of(), List.of());
            rules.remote(Set.of());
        });
    }

    /** Starts putting the table back within a second when something else removed or changed it. */
    public Firewall watched() {
        own.watched();
        return this;
    }

    /** Stops watching the table; the rules stay, so that running computers keep their network. */
    public void unwatch() {
        own.close();
    }

    /** Puts the table back now if something else removed or changed it; answers whether it had to. */
    public boolean repairIfChanged() {
        return own.repairIfChanged();
    }

    private String whole(Collection<ComputerRule> computers, Collection<DatabaseRule> databases,
                         Collection<ComputerRule> asleep, Set<RemoteMember> remote) {
        var batch = new StringBuilder(text.base());
        computers.forEach(c -> batch.append(text.putComputer(c)));
        databases.forEach(d -> batch.append(text.putDatabase(d)));
        asleep.forEach(c -> batch.append(text.asleep(c, true)));
        remote.forEach(m -> batch.append(text.remote(m, true)));
        return batch.toString();
    }

    /** The rules as nft lists them, for diagnosis and tests. */
    public String list() {
        return Commands.run(List.of("nft", "list", "table", "inet", table), LIMIT).stdout();
    }

    static String set(Collection<Cidr> cidrs) {
        return cidrs.stream().map(Cidr::toString).collect(Collectors.joining(", ", "{ ", " }"));
    }
}
