package dev.hearth.server.network;

import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.Slot;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computers' network rules, in one nftables table of Hearth's own ({@code inet hearth}): NAT for
 * their way out, what each may reach, their workspace's computers and databases, Hearth's services
 * address, and nothing of the host. Rules are keyed by each computer's host-side veth, so they hold
 * across sleep, wake and restores; every change is one atomic batch ({@link Nft}). Rules that
 * other software installed are never touched.
 */
public final class Firewall {
    private static final Logger LOG = LoggerFactory.getLogger(Firewall.class);
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
    private final Rules rules = new Rules();
    private final ReentrantLock lock = new ReentrantLock();
    // A digest of the table as listed after this instance's last change; null until the watch reads it.
    private String listed;

    public Firewall(String table, Services services, NetworkSettings settings) {
        this.table = table;
        this.text = new NftText(table, services, settings);
    }

    /** Replaces the whole table with the rules of these computers and databases (on start). */
    public void reset(Collection<ComputerRule> computers, Collection<DatabaseRule> databases,
                      Collection<ComputerRule> asleep) {
        change(whole(computers, databases, asleep), () -> rules.replace(computers, databases, asleep));
    }

    /** Adds a computer's rules, or replaces them (a changed policy applies at once). */
    public void put(ComputerRule computer) {
        change(text.putComputer(computer), () -> rules.put(computer));
    }

    public void remove(ComputerRule computer) {
        change(text.removeComputer(computer), () -> rules.remove(computer));
    }

    /** A sleeping computer's new connections go to the waker instead, which wakes it first. */
    public void asleep(ComputerRule computer, boolean asleep) {
        change(text.asleep(computer, asleep), () -> rules.asleep(computer, asleep));
    }

    public void putDatabase(DatabaseRule database) {
        change(text.putDatabase(database), () -> rules.put(database));
    }

    public void removeDatabase(DatabaseRule database) {
        change(text.removeDatabase(database), () -> rules.remove(database));
    }

    /** Sends a database's 5432 elsewhere on the services address (its cluster while awake): one batch. */
    public void routeDatabase(DatabaseRule from, DatabaseRule to) {
        change(text.removeDatabase(from) + text.putDatabase(to), () -> {
            rules.remove(from);
            rules.put(to);
        });
    }

    /** Removes the table (tests and benches clean up after themselves with it). */
    public void drop() {
        change("add table inet " + table + "\ndelete table inet " + table + "\n",
                () -> rules.replace(List.of(), List.of(), List.of()));
    }

    /**
     * Puts the table back when something else removed or changed it (a firewall reload, {@code nft
     * flush ruleset}, a restart of Docker or ufw): answers whether it had to. The first look after a
     * change of Hearth's own only notes what the table is.
     */
    public boolean repairIfChanged() {
        lock.lock();
        try {
            var now = Nft.read("list table inet " + table).map(Secrets::sha256);
            if (now.isPresent() && (listed == null || listed.equals(now.get()))) {
                listed = now.get();
                return false;
            }
            LOG.warn("the firewall table inet {} was {} by something other than Hearth: putting back the rules of "
                    + "{} computers and {} databases", table, now.isEmpty() ? "removed" : "changed",
                    rules.computers().size(), rules.databases().size());
            Nft.apply(whole(rules.computers(), rules.databases(), rules.asleep()));
            listed = null;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Applies a change and then records it; when the batch fails because the table is gone, the
     * change is recorded and the whole table put back with it, so that a create or a wake during the
     * loss still succeeds.
     */
    private void change(String batch, Runnable record) {
        lock.lock();
        try {
            try {
                Nft.apply(batch);
            } catch (Commands.Failure e) {
                if (Nft.read("list table inet " + table).isPresent()) {
                    throw e;
                }
                record.run();
                LOG.warn("the firewall table inet {} is gone (removed by something other than Hearth): putting it back",
                        table);
                Nft.apply(whole(rules.computers(), rules.databases(), rules.asleep()));
                listed = null;
                return;
            }
            record.run();
            listed = null;
        } finally {
            lock.unlock();
        }
    }

    private String whole(Collection<ComputerRule> computers, Collection<DatabaseRule> databases,
                         Collection<ComputerRule> asleep) {
        var batch = new StringBuilder();
        batch.append("add table inet ").append(table).append('\n')
                .append("delete table inet ").append(table).append('\n')
                .append(text.base());
        computers.forEach(c -> batch.append(text.putComputer(c)));
        databases.forEach(d -> batch.append(text.putDatabase(d)));
        asleep.forEach(c -> batch.append(text.asleep(c, true)));
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
