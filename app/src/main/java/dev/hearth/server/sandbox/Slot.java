package dev.hearth.server.sandbox;

import java.net.InetAddress;
import java.util.Optional;

/**
 * A computer's network slot: its network namespace and a /30 of 169.254.0.0/16 on a veth pair.
 * Block {@code index} is 169.254.0.0 + 4 * index; the host end is .1 of it and the sandbox .2.
 */
public record Slot(int index) {
    public static final int FIRST = 64;
    // Below 169.254.240.0: the /20 above is where databases are reached from computers.
    public static final int LAST = 15_359;

    public String netns() {
        return "hearth-" + index;
    }

    public String hostVeth() {
        return "hv" + index;
    }

    public String peerVeth() {
        return "hp" + index;
    }

    public String hostAddress() {
        return address(1);
    }

    public String sandboxAddress() {
        return address(2);
    }

    private String address(int offset) {
        int base = index * 4 + offset;
        return "169.254." + (base >> 8) + "." + (base & 255);
    }

    /** The slot whose sandbox has this address (169.254.x.y with y % 4 == 2), if any. */
    public static Optional<Slot> ofSandboxAddress(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length != 4 || (b[0] & 255) != 169 || (b[1] & 255) != 254 || (b[3] & 3) != 2) {
            return Optional.empty();
        }
        int index = ((b[2] & 255) << 8 | (b[3] & 255)) / 4;
        return usable(index) ? Optional.of(new Slot(index)) : Optional.empty();
    }

    /** 169.254.169.0/24 holds the cloud metadata address; no slot lives there. */
    public static boolean usable(int index) {
        return index >= FIRST && index <= LAST && (index * 4) >> 8 != 169;
    }
}
