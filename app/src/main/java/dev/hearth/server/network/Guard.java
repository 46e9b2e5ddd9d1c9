package dev.hearth.server.network;

import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.Slot;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rules in each computer's own network namespace, where a flush of the host's ruleset (a firewall
 * reload, {@code nft flush ruleset}) does not reach: a {@code netdev} egress chain on its eth0, which
 * sees what gVisor's netstack sends. Stateless, it refuses new connections (a TCP SYN) and any
 * other packet but DNS to the host's ends: the services address, every slot's host end
 * (169.254.x.y with y % 4 == 1) and the host's own addresses. While Hearth's table is whole these
 * refuse nothing it allows; between a loss of the table and its repair, the host stays closed.
 * Applied once per namespace (an {@code ip netns exec nft} costs milliseconds: not on a warm wake).
 */
final class Guard {
    private static final Logger LOG = LoggerFactory.getLogger(Guard.class);
    private static final Duration LIMIT = Duration.ofSeconds(10);
    static final String TABLE = "netdev hearth_guard";

    private final Services services;
    // The namespace (its inode) each slot's guard was put in: a namespace made again needs it again.
    private final Map<Integer, Object> guarded = new ConcurrentHashMap<>();

    Guard(Services services) {
        this.services = services;
    }

    void put(Slot slot) {
        Path ns = Path.of("/var/run/netns", slot.netns());
        try {
            Object inode = Files.getAttribute(ns, "unix:ino");
            if (inode.equals(guarded.get(slot.index()))) {
                return;
            }
            Commands.check(List.of("ip", "netns", "exec", slot.netns(), "nft", "-f", "-"), text(hostAddresses()), LIMIT);
            guarded.put(slot.index(), inode);
        } catch (IOException | RuntimeException e) {
            LOG.warn("computer slot {}: no guard in its network namespace (the host is closed by Hearth's table "
                    + "alone): {}", slot.index(), e.getMessage());
        }
    }

    String text(List<String> hostAddresses) {
        String host = services.address().host();
        String hostEnds = "ip daddr 169.254.0.0/16 ip daddr != " + Services.DATABASES + " ip daddr & 0.0.0.3 == 0.0.0.1";
        var text = new StringBuilder("add table " + TABLE + "\ndelete table " + TABLE + "\n")
                .append("table ").append(TABLE).append(" {\n  chain out {\n")
                .append("    type filter hook egress device \"eth0\" priority filter; policy accept;\n")
                .append("    ip daddr ").append(host).append(" meta l4proto { tcp, udp } th dport 53 accept\n")
                .append("    ").append(hostEnds).append(" tcp flags & (syn | ack) == syn drop\n")
                .append("    ").append(hostEnds).append(" meta l4proto != tcp drop\n");
        if (!hostAddresses.isEmpty()) {
            String set = hostAddresses.stream().collect(Collectors.joining(", ", "{ ", " }"));
            text.append("    ip daddr ").append(set).append(" tcp flags & (syn | ack) == syn drop\n")
                    .append("    ip daddr ").append(set).append(" meta l4proto != tcp drop\n");
        }
        return text.append("  }\n}\n").toString();
    }

    /** The host's own IPv4 addresses, loopback and 169.254.0.0/16 (covered above) left out. */
    static List<String> hostAddresses() {
        try {
            return Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                    .flatMap(nif -> Collections.list(nif.getInetAddresses()).stream())
                    .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                    .map(a -> a.getHostAddress()).distinct().sorted().toList();
        } catch (SocketException e) {
            return List.of();
        }
    }
}
