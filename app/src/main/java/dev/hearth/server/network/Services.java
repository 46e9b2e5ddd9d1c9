package dev.hearth.server.network;

import dev.hearth.server.process.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one address where Hearth serves computers, 169.254.0.1 on the host's loopback interface
 * (labelled {@code lo:hearth}; kernels without dummy interfaces have one too): its resolver, the waker and (through the firewall's per-workspace NAT, which
 * also maps port 53 to the resolver's own port) the databases and the pooler. Computers reach it
 * through their gateway; nothing else does. Each instance has ports of its own there.
 */
public record Services(Cidr address, int dnsPort, int wakerPort) {
    public static final Cidr ADDRESS = Cidr.of("169.254.0.1");
    /** Where databases are reached from computers: one address each, no computer's slot among them. */
    public static final Cidr DATABASES = Cidr.of("169.254.240.0/20");
    public static final int MAX_DATABASES = 4094;
    static final String LABEL = "lo:hearth";
    private static final Logger LOG = LoggerFactory.getLogger(Services.class);
    private static final Duration QUICK = Duration.ofSeconds(10);
    private static final Path FORWARDING = Path.of("/proc/sys/net/ipv4/ip_forward");

    /** The address the database with this offset into its port range is reached at from computers. */
    public static Cidr databaseAddress(int offset) {
        if (offset < 0 || offset >= MAX_DATABASES) {
            throw new IllegalArgumentException("database offset " + offset);
        }
        return DATABASES.plus(offset + 1);
    }

    /** Puts the address on the loopback interface unless there, and turns on IPv4 forwarding for NAT. */
    public static void prepareHost() {
        Commands.check(List.of("ip", "addr", "replace", ADDRESS + "/32", "dev", "lo", "label", LABEL), QUICK);
        try {
            if (!Files.readString(FORWARDING).strip().equals("1")) {
                Files.writeString(FORWARDING, "1");
                LOG.info("turned on IPv4 forwarding (net.ipv4.ip_forward=1): computers reach the internet through NAT");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot turn on IPv4 forwarding: " + e.getMessage(), e);
        }
    }
}
