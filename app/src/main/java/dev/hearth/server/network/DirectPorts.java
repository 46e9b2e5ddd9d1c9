package dev.hearth.server.network;

import dev.hearth.server.process.Commands;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Public ports the kernel forwards straight to a private one (an awake database's cluster), in an
 * nftables table of this instance's own ({@code ip hearthdb_…}): a DNAT for connections made on
 * this host (output) and from elsewhere (prerouting), so that no byte of theirs passes through
 * Hearth. A forwarded port on an address other hosts reach is guarded: its private port answers only
 * connections that came through the forward.
 */
public final class DirectPorts {
    private static final Logger LOG = LoggerFactory.getLogger(DirectPorts.class);

    /** A public address and port, and the private port on the same address it goes to. */
    public record Forward(String address, int publicPort, int privatePort) {
        String key() {
            return address + " . " + publicPort;
        }

        String element() {
            return key() + " : " + address + " . " + privatePort;
        }

        boolean guarded() {
            return !address.startsWith("127.");
        }
    }

    private final String table;
    private final Map<String, Forward> forwards = new ConcurrentHashMap<>();
    private final OwnTable own;

    private DirectPorts(String table) {
        this.table = "ip " + table;
        this.own = new OwnTable(this.table, this::whole);
    }

    /** Starts with an empty table; empty (and logged) where nftables cannot be used. */
    public static Optional<DirectPorts> start(Path dataDir) {
        var ports = new DirectPorts(tableFor(dataDir));
        try {
            ports.reset();
            ports.own.watched();
            return Optional.of(ports);
        } catch (Commands.Failure | UnsatisfiedLinkError e) {
            LOG.warn("nftables is not usable ({}): every database connection is relayed by Hearth's proxy",
                    e.getMessage());
            return Optional.empty();
        }
    }

    /** This instance's table (family ip): beside computers' {@code inet hearth_…}, with the same digest. */
    public static String tableFor(Path dataDir) {
        return "hearthdb_" + ComputerNetwork.tableFor(dataDir).substring("hearth_".length());
    }

    private void reset() {
        own.replace(forwards::clear);
    }

    private String base() {
        return "table " + table + " {\n"
                + "  map direct { type ipv4_addr . inet_service : ipv4_addr . inet_service; }\n"
                + "  set guarded { type ipv4_addr . inet_service; }\n"
                // dstnat (-100) by number: nft names it only for prerouting.
                + "  chain output { type nat hook output priority -100; policy accept;\n"
                + "    dnat to ip daddr . tcp dport map @direct\n  }\n"
                + "  chain prerouting { type nat hook prerouting priority dstnat; policy accept;\n"
                + "    dnat to ip daddr . tcp dport map @direct\n  }\n"
                + "  chain input { type filter hook input priority filter; policy accept;\n"
                + "    iifname != \"lo\" ct status ! dnat ip daddr . tcp dport @guarded drop\n  }\n"
                + "}\n";
    }

    /** The table with every forward Hearth holds: what is put back when something else removed it. */
    private String whole() {
        var text = new StringBuilder(base());
        forwards.values().forEach(f -> text.append(addition(f)));
        return text.toString();
    }

    private String addition(Forward forward) {
        String text = "add element " + table + " direct { " + forward.element() + " }\n";
        if (forward.guarded()) {
            text += "add element " + table + " guarded { " + forward.address() + " . " + forward.privatePort() + " }\n";
        }
        return text;
    }

    /** New connections to the public port go to the private one (a forward it had is replaced). */
    public synchronized void open(Forward forward) {
        var batch = new StringBuilder();
        var previous = forwards.get(forward.key());
        if (previous != null) {
            batch.append(removal(previous));
        }
        batch.append(addition(forward));
        own.change(batch.toString(), () -> forwards.put(forward.key(), forward));
    }

    /** New connections to the public port reach whatever listens on it again; open ones go on. */
    public synchronized void close(String address, int publicPort) {
        var previous = forwards.get(address + " . " + publicPort);
        if (previous != null) {
            own.change(removal(previous), () -> forwards.remove(previous.key()));
        }
    }

    private String removal(Forward forward) {
        String text = "delete element " + table + " direct { " + forward.key() + " }\n";
        if (forward.guarded()) {
            text += "delete element " + table + " guarded { " + forward.address() + " . " + forward.privatePort()
                    + " }\n";
        }
        return text;
    }

    /** Removes the table: Hearth is stopping, and its clusters with it. */
    public void drop() {
        try {
            own.drop(forwards::clear);
        } catch (Commands.Failure e) {
            LOG.warn("could not remove nftables table {}: {}", table, e.getMessage());
        }
    }
}
