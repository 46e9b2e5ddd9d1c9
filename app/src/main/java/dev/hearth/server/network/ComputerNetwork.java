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
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

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
    private final Remotes remotes;

    private ComputerNetwork(NetworkSettings settings, Firewall firewall, Resolver resolver, Waker waker, Guard guard,
                            Remotes remotes) {
        this.settings = settings;
        this.firewall = firewall;
        this.resolver = resolver;
        this.waker = waker;
        this.guard = guard;
        this.remotes = remotes;
        firewall.watched();
    }

    /** {@code node}: this node's own address, where other nodes' computers' packets arrive (see {@link Overlay}). */
    public static ComputerNetwork start(Path dataDir, NetworkSettings settings, Directory directory, Waker.Wake wake,
                                        Optional<InetAddress> node) throws IOException {
        Services.prepareHost();
        InetAddress address = InetAddress.getByName(Services.ADDRESS.host());
        var upstreams = settings.upstreams().orElseGet(ComputerNetwork::hostResolvers);
        var remotes = new AtomicReference<Remotes>();
        var resolver = Resolver.start(address, 0, routedTo(directory, remotes::get), upstreams);
        var waker = Waker.start(address, wake);
        var services = new Services(Services.ADDRESS, resolver.port(), waker.port());
        var firewall = new Firewall(tableFor(dataDir), services, settings, overlayFor(dataDir));
        remotes.set(new Remotes(directory::elsewhere, firewall, node, overlayFor(dataDir)));
        return new ComputerNetwork(settings, firewall, resolver, waker, new Guard(services), remotes.get());
    }

    /**
     * The directory, but a name that resolves to a computer of another node this one has no route
     * to yet is routed before it is answered.
     */
    private static Directory routedTo(Directory directory, Supplier<Remotes> remotes) {
        return new Directory() {
            @Override
            public Optional<String> workspaceOf(InetAddress computer) {
                return directory.workspaceOf(computer);
            }

            @Override
            public Optional<InetAddress> computer(String workspace, String name) {
                var found = directory.computer(workspace, name);
                found.filter(a -> directory.workspaceOf(a).isEmpty()).ifPresent(a -> remotes.get().known(a));
                return found;
            }

            @Override
            public Optional<InetAddress> database(String workspace, String name) {
                return directory.database(workspace, name);
            }

            @Override
            public List<Remote> elsewhere() {
                return directory.elsewhere();
            }
        };
    }

    /** This instance's table: Hearth's name and a digest of its data directory. */
    public static String tableFor(Path dataDir) {
        return "hearth_" + Secrets.sha256(dataDir.toAbsolutePath().normalize().toString()).substring(0, 10);
    }

    /** This instance's overlay device: {@code hvx} and a digest of its data directory (within 15 characters). */
    public static String overlayFor(Path dataDir) {
        return "hvx" + Secrets.sha256(dataDir.toAbsolutePath().normalize().toString()).substring(0, 10);
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
        remotes.close();
        firewall.unwatch();
        resolver.close();
        waker.close();
    }
}
