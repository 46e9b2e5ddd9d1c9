package dev.hearth.server.network;

import dev.hearth.server.crypto.Secrets;
import dev.hearth.server.sandbox.Slot;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Computers' networking, started once per {@code hearth serve} that runs computers: the services
 * address on the host, the resolver and the waker on it, and the firewall table of this instance
 * (named after its data directory, so that instances on one host keep to their own rules).
 */
public final class ComputerNetwork implements AutoCloseable {
    private final NetworkSettings settings;
    private final Firewall firewall;
    private final Resolver resolver;
    private final Waker waker;
    private final Guard guard;

    private ComputerNetwork(NetworkSettings settings, Firewall firewall, Resolver resolver, Waker waker, Guard guard) {
        this.settings = settings;
        this.firewall = firewall;
        this.resolver = resolver;
        this.waker = waker;
        this.guard = guard;
        firewall.watched();
    }

    public static ComputerNetwork start(Path dataDir, NetworkSettings settings, Directory directory, Waker.Wake wake)
            throws IOException {
        Services.prepareHost();
        InetAddress address = InetAddress.getByName(Services.ADDRESS.host());
        var upstreams = settings.upstreams().orElseGet(ComputerNetwork::hostResolvers);
        var resolver = Resolver.start(address, 0, directory, upstreams);
        var waker = Waker.start(address, wake);
        var services = new Services(Services.ADDRESS, resolver.port(), waker.port());
        return new ComputerNetwork(settings, new Firewall(tableFor(dataDir), services, settings), resolver, waker,
                new Guard(services));
    }

    /** This instance's table: Hearth's name and a digest of its data directory. */
    public static String tableFor(Path dataDir) {
        return "hearth_" + Secrets.sha256(dataDir.toAbsolutePath().normalize().toString()).substring(0, 10);
    }

    public NetworkSettings settings() {
        return settings;
    }

    public Firewall firewall() {
        return firewall;
    }

    /** Puts the rules that keep the host closed inside the slot's own namespace (see {@link Guard}), once. */
    public void guard(Slot slot) {
        guard.put(slot);
    }

    /** The host's own resolvers, as /etc/resolv.conf names them. */
    static List<InetSocketAddress> hostResolvers() {
        var upstreams = new ArrayList<InetSocketAddress>();
        try {
            for (String line : Files.readAllLines(Path.of("/etc/resolv.conf"))) {
                var parts = line.strip().split("\\s+");
                if (parts.length >= 2 && parts[0].equals("nameserver")) {
                    upstreams.add(new InetSocketAddress(InetAddress.getByName(parts[1]), 53));
                }
            }
        } catch (IOException e) {
            // no resolv.conf: names outside .internal answer SERVFAIL
        }
        return upstreams;
    }

    /** Stops answering; the rules stay, so that running computers keep their network until the next start. */
    @Override
    public void close() {
        firewall.unwatch();
        resolver.close();
        waker.close();
    }
}
