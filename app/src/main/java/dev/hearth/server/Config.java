package dev.hearth.server;

import dev.hearth.server.computers.SleepSettings;
import dev.hearth.server.pool.PoolSettings;
import dev.hearth.server.databases.DatabaseSettings;
import dev.hearth.server.http.IdempotencySettings;
import dev.hearth.server.http.RequestObserver;
import dev.hearth.server.limits.Limits;
import dev.hearth.server.mail.SmtpSettings;
import dev.hearth.server.network.NetworkSettings;
import dev.hearth.server.nodes.NodeSettings;
import dev.hearth.server.operations.OperationKind;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.server.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Everything {@code hearth serve} can be told. Start from {@link #defaults} and change what differs.
 * {@code publicUrl} is the {base_url} clients use (it names the token audience); when absent it is
 * http://{host}:{port}/v1 (https:// when the API has a certificate). {@code operationKinds} are the kinds of long work this server runs.
 */
public record Config(String host, int port, Path dataDir, String store, Optional<String> publicUrl,
                     Duration accessTokenLifetime, Duration sessionLifetime, Duration signingKeyRotation,
                     long maxBodyBytes, Optional<SmtpSettings> smtp, Optional<Path> encryptionKeys,
                     Duration invitationLifetime, Duration mailRetry, Duration operationLease,
                     List<OperationKind> operationKinds, Clock clock, RouterSettings router,
                     DatabaseSettings databases, NetworkSettings network, List<Path> localImages, Limits limits,
                     IdempotencySettings idempotency, TlsSettings tls,
                     Optional<String> metricsListen, RequestObserver observer, SleepSettings sleep,
                     PoolSettings pool, NodeSettings nodes, Map<String, String> e2bTemplates,
                     Optional<String> runscPlatform) {

    public static Config defaults(Path dataDir) {
        return new Config("127.0.0.1", 7300, dataDir, null, Optional.empty(), Duration.ofMinutes(15),
                Duration.ofDays(30), Duration.ofDays(30), 1 << 20, Optional.empty(), Optional.empty(),
                Duration.ofDays(7), Duration.ofSeconds(30), Duration.ofSeconds(30), List.of(), Clock.systemUTC(),
                RouterSettings.DEFAULT, DatabaseSettings.DEFAULT, NetworkSettings.DEFAULT, List.of(), Limits.DEFAULT,
                IdempotencySettings.DEFAULT, TlsSettings.NONE, Optional.empty(), RequestObserver.NONE,
                SleepSettings.defaults(), PoolSettings.NONE, NodeSettings.DEFAULT, Map.of(), Optional.empty());
    }

    /** The encryption key file: configured, or {@code encryption-keys.json} in the data directory. */
    public Path encryptionKeyFile() {
        return encryptionKeys.orElse(dataDir.resolve("encryption-keys.json"));
    }

    public Config withListen(String h, int p) {
        return with(b -> {
            b.host = h;
            b.port = p;
        });
    }

    public Config withPort(int p) {
        return withListen(host, p);
    }

    public Config withStore(String s) {
        return with(b -> b.store = s);
    }

    public Config withPublicUrl(Optional<String> url) {
        return with(b -> b.publicUrl = url);
    }

    public Config withSigningKeyRotation(Duration d) {
        return with(b -> b.signingKeyRotation = d);
    }

    public Config withSmtp(SmtpSettings s) {
        return with(b -> b.smtp = Optional.of(s));
    }

    public Config withEncryptionKeys(Optional<Path> file) {
        return with(b -> b.encryptionKeys = file);
    }

    public Config withInvitationLifetime(Duration d) {
        return with(b -> b.invitationLifetime = d);
    }

    public Config withMailRetry(Duration d) {
        return with(b -> b.mailRetry = d);
    }

    public Config withOperations(Duration lease, List<OperationKind> kinds) {
        return with(b -> {
            b.operationLease = lease;
            b.operationKinds = List.copyOf(kinds);
        });
    }

    public Config withRouter(RouterSettings r) {
        return with(b -> b.router = r);
    }

    public Config withClock(Clock c) {
        return with(b -> b.clock = c);
    }

    public Config withDatabases(DatabaseSettings d) {
        return with(b -> b.databases = d);
    }

    public Config withNetwork(NetworkSettings n) {
        return with(b -> b.network = n);
    }

    /** Directories whose OCI layouts and archives {@code oci:}, {@code oci-archive:} and {@code docker-archive:} may name. */
    public Config withLocalImages(List<Path> dirs) {
        return with(b -> b.localImages = List.copyOf(dirs));
    }

    public Config withLimits(Limits l) {
        return with(b -> b.limits = l);
    }

    public Config withIdempotency(IdempotencySettings i) {
        return with(b -> b.idempotency = i);
    }

    /** host:port of the operator listener that serves GET /metrics (absent: no metrics). */
    public Config withMetricsListen(Optional<String> address) {
        return with(b -> b.metricsListen = address);
    }

    public Config withTls(TlsSettings t) {
        return with(b -> b.tls = t);
    }

    /** Told of every API answer besides the metrics (a program embedding the server; the tests check answers). */
    public Config withObserver(RequestObserver o) {
        return with(b -> b.observer = o);
    }

    /** How long computers sleep warm, and the memory the host keeps free of warm sleepers. */
    public Config withSleep(SleepSettings s) {
        return with(b -> b.sleep = s);
    }

    /** The warm pool: booted sandboxes per image that creates claim (none unless asked; hearth serve asks). */
    public Config withPool(PoolSettings p) {
        return with(b -> b.pool = p);
    }

    /** Which node this process is, where other nodes reach it, and how long its lease lasts. */
    public Config withNodes(NodeSettings n) {
        return with(b -> b.nodes = n);
    }

    /** E2B's templates by name ({@code base} and others), each an image reference. */
    public Config withE2bTemplates(Map<String, String> templates) {
        return with(b -> b.e2bTemplates = Map.copyOf(templates));
    }

    /** gVisor's platform for computers' sandboxes ({@code runsc --platform}); empty: runsc's default, systrap. */
    public Config withRunscPlatform(Optional<String> platform) {
        return with(b -> b.runscPlatform = platform);
    }

    private Config with(Consumer<Builder> change) {
        var b = new Builder(this);
        change.accept(b);
        return b.build();
    }

    /** A copy to change one setting in, so that each {@code with…} names only what it changes. */
    private static final class Builder {
        String host;
        int port;
        Path dataDir;
        String store;
        Optional<String> publicUrl;
        Duration accessTokenLifetime;
        Duration sessionLifetime;
        Duration signingKeyRotation;
        long maxBodyBytes;
        Optional<SmtpSettings> smtp;
        Optional<Path> encryptionKeys;
        Duration invitationLifetime;
        Duration mailRetry;
        Duration operationLease;
        List<OperationKind> operationKinds;
        Clock clock;
        RouterSettings router;
        DatabaseSettings databases;
        NetworkSettings network;
        List<Path> localImages;
        Limits limits;
        IdempotencySettings idempotency;
        TlsSettings tls;
        Optional<String> metricsListen;
        RequestObserver observer;
        SleepSettings sleep;
        PoolSettings pool;
        NodeSettings nodes;
        Map<String, String> e2bTemplates;
        Optional<String> runscPlatform;

        Builder(Config c) {
            host = c.host;
            port = c.port;
            dataDir = c.dataDir;
            store = c.store;
            publicUrl = c.publicUrl;
            accessTokenLifetime = c.accessTokenLifetime;
            sessionLifetime = c.sessionLifetime;
            signingKeyRotation = c.signingKeyRotation;
            maxBodyBytes = c.maxBodyBytes;
            smtp = c.smtp;
            encryptionKeys = c.encryptionKeys;
            invitationLifetime = c.invitationLifetime;
            mailRetry = c.mailRetry;
            operationLease = c.operationLease;
            operationKinds = c.operationKinds;
            clock = c.clock;
            router = c.router;
            databases = c.databases;
            network = c.network;
            localImages = c.localImages;
            limits = c.limits;
            idempotency = c.idempotency;
            tls = c.tls;
            metricsListen = c.metricsListen;
            observer = c.observer;
            sleep = c.sleep;
            pool = c.pool;
            nodes = c.nodes;
            e2bTemplates = c.e2bTemplates;
            runscPlatform = c.runscPlatform;
        }

        Config build() {
            return new Config(host, port, dataDir, store, publicUrl, accessTokenLifetime, sessionLifetime,
                    signingKeyRotation, maxBodyBytes, smtp, encryptionKeys, invitationLifetime, mailRetry,
                    operationLease, operationKinds, clock, router, databases, network, localImages, limits,
                    idempotency, tls, metricsListen, observer, sleep, pool, nodes, e2bTemplates, runscPlatform);
        }
    }
}
