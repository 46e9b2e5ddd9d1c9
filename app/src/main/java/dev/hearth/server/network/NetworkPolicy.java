package dev.hearth.server.network;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.hearth.api.network.NetworkPolicyView;
import java.util.List;

/**
 * Where a computer may open connections: the internet (every address that is not private) unless
 * {@code internet} is false; the networks of {@code allowOut} even then; never those of
 * {@code denyOut}, which wins over both. Computers of its workspace, its databases and Hearth's DNS
 * are always reachable; the host and other private ranges never, but as an operator allows.
 */
public record NetworkPolicy(boolean internet, List<Cidr> allowOut, List<Cidr> denyOut) {
    public static final int MAX_ENTRIES = 64;
    public static final NetworkPolicy DEFAULT = new NetworkPolicy(true, List.of(), List.of());

    public NetworkPolicy {
        allowOut = List.copyOf(allowOut);
        denyOut = List.copyOf(denyOut);
    }

    @JsonIgnore
    public NetworkPolicyView view() {
        return new NetworkPolicyView(internet, allowOut.stream().map(Cidr::toString).toList(),
                denyOut.stream().map(Cidr::toString).toList());
    }
}
