package dev.hearth.server.sandbox;

/**
 * A computer's network slot: its network namespace and a /30 of 169.254.0.0/16 on a veth pair.
 * Block {@code index} is 169.254.0.0 + 4 * index; the host end is .1 of it and the sandbox .2.
 */
public record Slot(int index) {
    public static final int FIRST = 64;
    public static final int LAST = 16_383;

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

    /** 169.254.169.0/24 holds the cloud metadata address; no slot lives there. */
    public static boolean usable(int index) {
        return index >= FIRST && index <= LAST && (index * 4) >> 8 != 169;
    }
}
