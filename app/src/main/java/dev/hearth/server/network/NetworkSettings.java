package dev.hearth.server.network;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * What an operator decides about computers' networks: private networks every computer may reach
 * ({@code allowPrivate}, as if they were the internet), private networks a computer's
 * {@code allow_out} may name ({@code allowOutPrivate}), and the resolvers names outside
 * {@code .internal} are asked of (empty: the host's, from /etc/resolv.conf).
 */
public record NetworkSettings(List<Cidr> allowPrivate, List<Cidr> allowOutPrivate,
                              Optional<List<InetSocketAddress>> upstreams) {
    public static final NetworkSettings DEFAULT = new NetworkSettings(List.of(), List.of(), Optional.empty());

    public NetworkSettings {
        allowPrivate = List.copyOf(allowPrivate);
        allowOutPrivate = List.copyOf(allowOutPrivate);
    }
}
