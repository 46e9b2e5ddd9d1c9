package dev.hearth.server.sandbox.runsc;

import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.Slot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One network namespace and veth pair per network slot, set up with {@code ip}, and a marker file
 * per slot that records which slots have a network made by this runtime.
 */
final class Networks {
    private static final Logger LOG = LoggerFactory.getLogger(Networks.class);
    private static final Duration QUICK = Runsc.QUICK;

    private final Path markers;

    /** {@code markers}: the directory of marker files, beside the runsc root. */
    Networks(Path markers) {
        this.markers = markers;
    }

    // Network set-up runs as two `ip -batch` calls, one per side of the veth pair: a process per
    // step cost ~2.5 ms each, a dozen of them per create.
    void prepare(Slot slot) {
        mark(slot, true);
        String ns = slot.netns();
        boolean nsExists = Files.exists(Path.of("/var/run/netns", ns));
        if (nsExists && Commands.run(List.of("ip", "-n", ns, "link", "show", "eth0"), QUICK).ok()) {
            return;
        }
        if (linkExists(slot.hostVeth())) {
            // A host end left from an earlier namespace of this slot (veth pairs are freed lazily) goes first.
            Commands.run(List.of("ip", "link", "del", slot.hostVeth()), QUICK);
        }
        Commands.check(List.of("ip", "-batch", "-"), hostSide(slot, nsExists), QUICK);
        Commands.check(List.of("ip", "-n", ns, "-batch", "-"), "link set " + slot.peerVeth() + " name eth0\n"
                + "link set eth0 addrgenmode none\nlink set eth0 up\nlink set lo up\n", QUICK);
    }

    /** Whether the slot's namespace, its eth0 and the host end of its veth pair are all there. */
    boolean intact(Slot slot) {
        return Files.exists(Path.of("/var/run/netns", slot.netns())) && linkExists(slot.hostVeth())
                && Commands.run(List.of("ip", "-n", slot.netns(), "link", "show", "eth0"), QUICK).ok();
    }

    /**
     * Whether this network namespace has the link: asked of the kernel, not of /sys/class/net, which
     * shows the namespace /sys was mounted in (a node started with nsenter --net keeps the host's).
     */
    private static boolean linkExists(String name) {
        try {
            return NetworkInterface.getByName(name) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** The namespace (unless there), the veth pair with its peer moved in, and the host end's address. */
    private static String hostSide(Slot slot, boolean nsExists) {
        String ns = slot.netns();
        var host = new StringBuilder();
        if (!nsExists) {
            host.append("netns add ").append(ns).append('\n');
        }
        host.append("link add ").append(slot.hostVeth()).append(" type veth peer name ").append(slot.peerVeth()).append('\n')
                .append("link set ").append(slot.peerVeth()).append(" netns ").append(ns).append('\n')
                .append("addr replace ").append(slot.hostAddress()).append("/30 dev ").append(slot.hostVeth()).append('\n')
                // No IPv6 link-local address, so no router solicitations: the kernel sends them for
                // ever (backing off to an hour), and each one thawed a computer frozen while idle.
                .append("link set ").append(slot.hostVeth()).append(" addrgenmode none\n")
                .append("link set ").append(slot.hostVeth()).append(" up\n");
        return host.toString();
    }

    /**
     * runsc moves eth0's addresses into its netstack and strips them; put them back before every start:
     * the slot's own, and on a restore those of the sandboxes the memory was taken from.
     */
    void readdress(Slot slot, List<String> formerAddresses) {
        var batch = new StringBuilder("addr replace " + slot.sandboxAddress() + "/30 dev eth0\n"
                + "route replace default via " + slot.hostAddress() + "\n");
        formerAddresses.stream().filter(a -> !a.equals(slot.sandboxAddress()))
                .forEach(a -> batch.append("addr replace ").append(a).append("/32 dev eth0\n"));
        Commands.check(List.of("ip", "-n", slot.netns(), "-batch", "-"), batch.toString(), QUICK);
    }

    void remove(Slot slot) {
        Commands.run(List.of("ip", "link", "del", slot.hostVeth()), QUICK);
        Commands.run(List.of("ip", "netns", "del", slot.netns()), QUICK);
        mark(slot, false);
    }

    /** The slots whose networks this runtime made (a marker per slot beside its runsc root). */
    Set<Slot> slots() {
        var result = new LinkedHashSet<Slot>();
        try (var files = Files.list(Files.createDirectories(markers))) {
            files.forEach(m -> result.add(new Slot(Integer.parseInt(m.getFileName().toString()))));
        } catch (IOException | NumberFormatException e) {
            LOG.warn("cannot list network markers in {}", markers, e);
        }
        return result;
    }

    private void mark(Slot slot, boolean present) {
        try {
            Path marker = Files.createDirectories(markers).resolve(String.valueOf(slot.index()));
            if (present) {
                Files.writeString(marker, slot.netns());
            } else {
                Files.deleteIfExists(marker);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
