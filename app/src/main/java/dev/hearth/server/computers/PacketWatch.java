package dev.hearth.server.computers;

import dev.hearth.server.process.Rounds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thaws a computer frozen while idle when a packet is sent to it: the host's end of its veth counts
 * what it passes on, so a count that grew since the freeze means something is waiting in the frozen
 * sandbox (a reply on a connection it holds, a datagram). New TCP connections do not wait for this:
 * the firewall hands them to the waker at once. One read of /proc/net/dev every 50 ms covers every
 * frozen computer, and nothing is read while none is frozen.
 */
final class PacketWatch {
    private static final Logger LOG = LoggerFactory.getLogger(PacketWatch.class);
    static final Duration EVERY = Duration.ofMillis(50);
    private static final Path DEVICES = Path.of("/proc/self/net/dev");

    private final Dozes dozes;
    private final Gates gates;
    private final Set<String> thawing = ConcurrentHashMap.newKeySet();

    PacketWatch(Dozes dozes, Gates gates) {
        this.dozes = dozes;
        this.gates = gates;
    }

    Thread start() {
        return Rounds.every("packet-watch", EVERY, LOG, "watching frozen computers' packets failed", this::round);
    }

    /** Packets the host has sent to the sandbox of this slot so far; -1 if its veth is not here. */
    static long sentTo(String hostVeth) {
        return counter(hostVeth, "tx_packets");
    }

    private static long counter(String hostVeth, String name) {
        try {
            return Long.parseLong(Files.readString(Path.of("/sys/class/net", hostVeth, "statistics", name)).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Packets sent to the slot's sandbox so far, once its veth has passed nothing either way for
     * {@code still} (or {@code atMost} has gone by); -1 without a veth here.
     */
    static long quietly(String hostVeth, Duration still, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        long before = sentTo(hostVeth) + receivedFrom(hostVeth);
        try {
            while (System.nanoTime() < deadline) {
                Thread.sleep(still);
                long now = sentTo(hostVeth) + receivedFrom(hostVeth);
                if (now == before) {
                    break;
                }
                before = now;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return sentTo(hostVeth);
    }

    private static long receivedFrom(String hostVeth) {
        return counter(hostVeth, "rx_packets");
    }

    private void round() {
        var frozen = dozes.all();
        if (frozen.isEmpty()) {
            return;
        }
        var sent = sentPackets();
        frozen.forEach((id, doze) -> {
            Long now = sent.get(doze.computer().slot().hostVeth());
            if (now != null && doze.sentPackets() >= 0 && now != doze.sentPackets() && thawing.add(id)) {
                Thread.ofVirtual().name("packet-thaw-" + id).start(() -> thaw(id));
            }
        });
    }

    private void thaw(String computerId) {
        try {
            if (gates.thaw(computerId)) {
                LOG.debug("computer {} thawed by a packet", computerId);
            }
        } catch (RuntimeException e) {
            LOG.warn("computer {} could not be thawed for a packet", computerId, e);
        } finally {
            thawing.remove(computerId);
        }
    }

    /**
     * The {@code index}th number after {@code from} (-1 if the line has fewer): scanned by hand, as
     * twenty reads a second of a line per veth made a regular expression's split a good part of a
     * dense host's CPU at rest.
     */
    static long field(String line, int from, int index) {
        int i = from;
        for (int n = 0; ; n++) {
            while (i < line.length() && line.charAt(i) == ' ') {
                i++;
            }
            int start = i;
            while (i < line.length() && line.charAt(i) != ' ') {
                i++;
            }
            if (start == i) {
                return -1;
            }
            if (n == index) {
                return Long.parseLong(line, start, i, 10);
            }
        }
    }

    /** Packets sent per host-side veth ("hv..."), from one read of the interface counters. */
    private static Map<String, Long> sentPackets() {
        var sent = new HashMap<String, Long>();
        try {
            for (String line : Files.readAllLines(DEVICES)) {
                int colon = line.indexOf(':');
                String name = colon < 0 ? "" : line.substring(0, colon).strip();
                if (!name.startsWith("hv")) {
                    continue;
                }
                // receive: bytes packets errs drop fifo frame compressed multicast; transmit: bytes packets ...
                long packets = field(line, colon + 1, 9);
                if (packets >= 0) {
                    sent.put(name, packets);
                }
            }
        } catch (IOException | NumberFormatException e) {
            LOG.debug("cannot read {}: {}", DEVICES, e.toString());
        }
        return sent;
    }
}
