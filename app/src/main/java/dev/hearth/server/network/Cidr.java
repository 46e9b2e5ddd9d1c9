package dev.hearth.server.network;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * An IPv4 network, {@code a.b.c.d/len} (a bare address is a /32). Computers have IPv4 only, so their
 * rules name IPv4 networks only. Written back in canonical form: host bits cleared.
 */
public record Cidr(int address, int prefix) {
    private static final Pattern FORM = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})(?:/(\\d{1,2}))?");

    /** The ranges a computer never reaches unless an operator opens them: the host's own and private ones. */
    public static final List<Cidr> PRIVATE = List.of(parse("0.0.0.0/8").orElseThrow(),
            parse("10.0.0.0/8").orElseThrow(), parse("100.64.0.0/10").orElseThrow(),
            parse("127.0.0.0/8").orElseThrow(), parse("169.254.0.0/16").orElseThrow(),
            parse("172.16.0.0/12").orElseThrow(), parse("192.168.0.0/16").orElseThrow(),
            parse("224.0.0.0/3").orElseThrow());

    public Cidr {
        if (prefix < 0 || prefix > 32) {
            throw new IllegalArgumentException("prefix " + prefix);
        }
        address &= mask(prefix);
    }

    /** The network a text names, or empty when it is not an IPv4 address or network. */
    public static Optional<Cidr> parse(String text) {
        var m = FORM.matcher(text == null ? "" : text.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        int address = 0;
        for (int i = 1; i <= 4; i++) {
            int octet = Integer.parseInt(m.group(i));
            if (octet > 255) {
                return Optional.empty();
            }
            address = address << 8 | octet;
        }
        int prefix = m.group(5) == null ? 32 : Integer.parseInt(m.group(5));
        return prefix > 32 ? Optional.empty() : Optional.of(new Cidr(address, prefix));
    }

    public static Cidr of(String address) {
        return parse(address).orElseThrow(() -> new IllegalArgumentException("not an IPv4 address: " + address));
    }

    public boolean contains(Cidr other) {
        return other.prefix >= prefix && (other.address & mask(prefix)) == address;
    }

    /** Whether the two networks share any address. */
    public boolean overlaps(Cidr other) {
        return contains(other) || other.contains(this);
    }

    /** Whether every address of this network lies in one of {@code networks}. */
    public boolean within(List<Cidr> networks) {
        return networks.stream().anyMatch(n -> n.contains(this));
    }

    public boolean isPrivate() {
        return PRIVATE.stream().anyMatch(this::overlaps);
    }

    /** The first address of the network plus {@code offset}, as a /32. */
    public Cidr plus(int offset) {
        return new Cidr(address + offset, 32);
    }

    public String host() {
        return (address >>> 24) + "." + (address >>> 16 & 255) + "." + (address >>> 8 & 255) + "." + (address & 255);
    }

    @Override
    public String toString() {
        return prefix == 32 ? host() : host() + "/" + prefix;
    }

    private static int mask(int prefix) {
        return prefix == 0 ? 0 : -1 << (32 - prefix);
    }
}
