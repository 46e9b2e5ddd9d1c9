package dev.hearth.server.network;

import dev.hearth.server.process.Commands;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network between nodes' computers: one VXLAN device per node on the node's own address, and
 * for each computer of another node a host route through it to that node. Nothing is learned or
 * flooded: every node's device has a MAC made of its address, each peer an entry in the device's
 * forwarding table, and each remote computer a permanent neighbour entry with its node's MAC, so a
 * packet for it leaves at once, wrapped in UDP to its node. Slots are unique across the store, so a
 * computer's address is the same wherever it is seen from. Which packets may cross is the
 * firewall's business ({@link Firewall#remoteMembers}).
 */
public final class Overlay implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Overlay.class);
    private static final Duration QUICK = Duration.ofSeconds(10);
    static final int VNI = 4242;
    static final int PORT = 4789;
    // The underlay's 1500 less VXLAN's 50 bytes; TCP's MSS is clamped to it in the firewall.
    static final int MTU = 1450;

    private final String device;
    private final Set<InetAddress> peers = new HashSet<>();
    private final Map<InetAddress, InetAddress> routes = new HashMap<>();

    private Overlay(String device) {
        this.device = device;
    }

    /** Makes the device anew on {@code local}, this node's address (routes through an old one go with it). */
    public static Overlay start(String device, InetAddress local) {
        Commands.run(List.of("ip", "link", "del", device), QUICK);
        Commands.check(List.of("ip", "link", "add", device, "address", mac(local), "mtu", String.valueOf(MTU),
                "type", "vxlan", "id", String.valueOf(VNI), "dstport", String.valueOf(PORT), "local",
                local.getHostAddress(), "nolearning"), QUICK);
        Commands.check(List.of("ip", "link", "set", device, "up"), QUICK);
        LOG.info("computers reach other nodes' computers through {} (VXLAN {} on {}:{})", device, VNI,
                local.getHostAddress(), PORT);
        return new Overlay(device);
    }

    public String device() {
        return device;
    }

    /**
     * Routes each remote computer's address (the key) to its node's address (the value), and only
     * those: what moved or went is changed or removed.
     */
    public synchronized void route(Map<InetAddress, InetAddress> remote) {
        var fdb = new StringBuilder();
        for (var peer : new HashSet<>(remote.values())) {
            if (peers.add(peer)) {
                fdb.append("fdb replace ").append(mac(peer)).append(" dev ").append(device).append(" dst ")
                        .append(peer.getHostAddress()).append(" self permanent\n");
            }
        }
        var ip = new StringBuilder();
        for (var gone : Set.copyOf(routes.keySet())) {
            if (!remote.containsKey(gone)) {
                ip.append("route del ").append(gone.getHostAddress()).append("/32 dev ").append(device).append('\n')
                        .append("neigh del ").append(gone.getHostAddress()).append(" dev ").append(device).append('\n');
                routes.remove(gone);
            }
        }
        remote.forEach((computer, peer) -> {
            if (!peer.equals(routes.get(computer))) {
                ip.append("neigh replace ").append(computer.getHostAddress()).append(" lladdr ").append(mac(peer))
                        .append(" dev ").append(device).append(" nud permanent\n")
                        .append("route replace ").append(computer.getHostAddress()).append("/32 dev ").append(device)
                        .append('\n');
                routes.put(computer, peer);
            }
        });
        batch("bridge", fdb);
        batch("ip", ip);
    }

    private static void batch(String tool, StringBuilder commands) {
        if (!commands.isEmpty()) {
            // -force: one stale line (a route already gone) must not stop the rest.
            var result = Commands.run(List.of(tool, "-force", "-batch", "-"), commands.toString(), QUICK);
            if (!result.ok()) {
                LOG.warn("the overlay's {} batch had errors: {}", tool, result.stderr().strip());
            }
        }
    }

    /** A locally administered MAC that names the node's IPv4 address: 02:68 then its four bytes. */
    static String mac(InetAddress node) {
        byte[] b = node.getAddress();
        return String.format("02:68:%02x:%02x:%02x:%02x", b[0] & 255, b[1] & 255, b[2] & 255, b[3] & 255);
    }

    /** Removes the device, and with it every route through it (a teardown; a stop leaves it for the next start). */
    public static void remove(String device) {
        Commands.run(List.of("ip", "link", "del", device), QUICK);
    }

    @Override
    public void close() {
        remove(device);
    }
}
