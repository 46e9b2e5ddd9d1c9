package dev.hearth.cli;

import dev.hearth.server.Config;
import dev.hearth.server.HearthServer;
import dev.hearth.server.e2b.E2bSettings;
import dev.hearth.server.computers.SleepSettings;
import dev.hearth.server.databases.DatabaseSettings;
import dev.hearth.server.mail.SmtpSettings;
import dev.hearth.server.network.Cidr;
import dev.hearth.server.network.NetworkSettings;
import dev.hearth.server.nodes.Joining;
import dev.hearth.server.nodes.NodeSettings;
import dev.hearth.server.pool.PoolSettings;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.server.tls.TlsFiles;
import dev.hearth.server.tls.TlsSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hearth serve}: runs the service until interrupted. */
@Command(name = "serve", description = "Run the Hearth service.")
final class ServeCommand implements Callable<Integer> {
    @Option(names = "--listen", paramLabel = "LISTEN", defaultValue = "${env:HEARTH_LISTEN:-127.0.0.1:7300}", description = "host:port to listen on (default ${DEFAULT-VALUE})")
    String listen;

    @Option(names = "--router-listen", paramLabel = "ROUTER_LISTEN", defaultValue = "${env:HEARTH_ROUTER_LISTEN:-127.0.0.1:7301}", description = "host:port of the computer router (default ${DEFAULT-VALUE})")
    String routerListen;

    @Option(names = "--router-domain", paramLabel = "ROUTER_DOMAIN", defaultValue = "${env:HEARTH_ROUTER_DOMAIN:-localhost}", description = "domain of computer URLs: {computer}--{workspace}.DOMAIN (default ${DEFAULT-VALUE})")
    String routerDomain;

    @Option(names = "--router-public-port", paramLabel = "ROUTER_PUBLIC_PORT", defaultValue = "${env:HEARTH_ROUTER_PUBLIC_PORT}", description = "port computer URLs name, when a front proxy listens elsewhere (default: the router's)")
    Integer routerPublicPort;

    @Option(names = "--router-public-scheme", paramLabel = "ROUTER_PUBLIC_SCHEME", defaultValue = "${env:HEARTH_ROUTER_PUBLIC_SCHEME}", description = "http or https: the scheme computer URLs name, when a front proxy serves them (default: https if the router has a certificate)")
    String routerPublicScheme;

    @Option(names = "--tls-cert", defaultValue = "${env:HEARTH_TLS_CERT}", paramLabel = "FILE", description = "PEM certificate (chain after it) of the API; with --tls-key the API speaks HTTPS only; reloaded when the file changes")
    Path tlsCert;

    @Option(names = "--tls-key", defaultValue = "${env:HEARTH_TLS_KEY}", paramLabel = "FILE", description = "PEM private key of --tls-cert")
    Path tlsKey;

    @Option(names = "--router-tls-cert", defaultValue = "${env:HEARTH_ROUTER_TLS_CERT}", paramLabel = "FILE", description = "PEM certificate of the router, usually a wildcard *.DOMAIN (may be the API's)")
    Path routerTlsCert;

    @Option(names = "--router-tls-key", defaultValue = "${env:HEARTH_ROUTER_TLS_KEY}", paramLabel = "FILE", description = "PEM private key of --router-tls-cert")
    Path routerTlsKey;

    @Option(names = "--tls-self-signed", defaultValue = "${env:HEARTH_TLS_SELF_SIGNED:-false}", description = "serve HTTPS with a CA made in {data_dir}/tls (clients pass --ca-file {data_dir}/tls/ca.pem) where no certificate is given")
    boolean tlsSelfSigned;

    @Option(names = "--redirect-http", defaultValue = "${env:HEARTH_REDIRECT_HTTP}", paramLabel = "HOST:PORT", description = "also listen for plain HTTP here and redirect it to HTTPS (e.g. 0.0.0.0:80)")
    String redirectHttp;

    @Option(names = "--metrics-listen", defaultValue = "${env:HEARTH_METRICS_LISTEN}", paramLabel = "HOST:PORT", description = "serve Prometheus metrics at GET /metrics here, for operators (default: off)")
    String metricsListen;

    @Option(names = "--database-host", paramLabel = "DATABASE_HOST", defaultValue = "${env:HEARTH_DATABASE_HOST:-127.0.0.1}", description = "host name database connections name; also put in their TLS certificate (default ${DEFAULT-VALUE})")
    String databaseHost;

    @Option(names = "--database-listen", paramLabel = "DATABASE_LISTEN", defaultValue = "${env:HEARTH_DATABASE_LISTEN:-127.0.0.1}", description = "address database ports and the pooler listen on (default ${DEFAULT-VALUE})")
    String databaseListen;

    @Option(names = "--database-ports", paramLabel = "DATABASE_PORTS", defaultValue = "${env:HEARTH_DATABASE_PORTS:-7400-7999}", description = "range each database's own port comes from (default ${DEFAULT-VALUE})")
    String databasePorts;

    @Option(names = "--pooler-port", paramLabel = "POOLER_PORT", defaultValue = "${env:HEARTH_POOLER_PORT:-6432}", description = "pgbouncer's port, in front of every database (default ${DEFAULT-VALUE}; 0: any free one)")
    int poolerPort;

    @Option(names = "--computer-allow-private", split = ",", paramLabel = "CIDR", defaultValue = "${env:HEARTH_COMPUTER_ALLOW_PRIVATE}", description = "private networks every computer may reach, as if they were the internet (default: none)")
    List<String> allowPrivate;

    @Option(names = "--computer-allow-out-private", split = ",", paramLabel = "CIDR", defaultValue = "${env:HEARTH_COMPUTER_ALLOW_OUT_PRIVATE}", description = "private networks a computer's network.allow_out may name (default: none)")
    List<String> allowOutPrivate;

    @Option(names = "--dns-upstream", split = ",", paramLabel = "HOST[:PORT]", defaultValue = "${env:HEARTH_DNS_UPSTREAM}", description = "resolvers computers' names outside .internal are asked of (default: the host's, from /etc/resolv.conf)")
    List<String> dnsUpstream;

    @Option(names = "--local-images", split = ",", paramLabel = "DIR", defaultValue = "${env:HEARTH_LOCAL_IMAGES}", description = "directories whose OCI layouts and archives images may name as oci:, oci-archive: or docker-archive: (default: none; users name registry images)")
    List<Path> localImages;

    @Option(names = "--e2b-template", split = ",", paramLabel = "NAME=IMAGE", defaultValue = "${env:HEARTH_E2B_TEMPLATES}", description = "E2B's templates by name, each an image reference (e.g. base=oci:/srv/images/e2b-base:base); ./hearth serve names scripts/build-e2b-base's image base when it is there (default: none)")
    List<String> e2bTemplates;

    @Option(names = "--rate-limit", paramLabel = "RATE_LIMIT", defaultValue = "${env:HEARTH_RATE_LIMIT:-100}", description = "requests a second each principal may make, in bursts of ten times that (default ${DEFAULT-VALUE})")
    double rateLimit;

    @Option(names = "--sign-in-failures", paramLabel = "SIGN_IN_FAILURES", defaultValue = "${env:HEARTH_SIGN_IN_FAILURES:-30}", description = "failed token requests and sign-in codes a minute from one client address (default ${DEFAULT-VALUE})")
    int signInFailures;

    @Option(names = "--disk-reserve-mb", paramLabel = "DISK_RESERVE_MB", defaultValue = "${env:HEARTH_DISK_RESERVE_MB:-1024}", description = "free space the data directory keeps; below it creates answer 507 (default ${DEFAULT-VALUE})")
    long diskReserveMb;

    @Option(names = "--warm-sleep-seconds", paramLabel = "SECONDS", defaultValue = "${env:HEARTH_WARM_SLEEP_SECONDS:-300}", description = "a sleeping computer stays frozen in memory this long (woken in milliseconds) before its memory goes to disk; 0: straight to disk (default ${DEFAULT-VALUE})")
    long warmSleepSeconds;

    @Option(names = "--freeze-idle-after", paramLabel = "SECONDS", defaultValue = "${env:HEARTH_FREEZE_IDLE_AFTER:-10}", description = "a ready computer with no request, no command of the API running and almost no CPU use for this long is frozen (no CPU) until its next request or packet, still ready; a computer's freeze_when_idle false opts out; 0: never (default ${DEFAULT-VALUE})")
    long freezeIdleAfter;

    @Option(names = "--memory-reserve-mb", paramLabel = "MB", defaultValue = "${env:HEARTH_MEMORY_RESERVE_MB}", description = "host memory kept available: below it, warm sleepers go to disk early, longest asleep first (default: a tenth of the host's memory)")
    Long memoryReserveMb;

    @Option(names = "--warm-pool", paramLabel = "IMAGE=N", defaultValue = "${env:HEARTH_WARM_POOL:-" + PoolSettings.DEFAULT + "}", description = "booted sandboxes kept per image, claimed by creates with default resources (IMAGE=N[,IMAGE=N]; 0: none) (default ${DEFAULT-VALUE})")
    String warmPool;

    @Option(names = "--runsc-platform", paramLabel = "PLATFORM", defaultValue = "${env:HEARTH_RUNSC_PLATFORM}", description = "gVisor's platform for computers: systrap (runsc's default; an idle computer costs 30-45 ms of CPU a second) or ptrace (under 10 ms; see docs/benchmarks.md)")
    String runscPlatform;

    @Option(names = "--join", paramLabel = "TOKEN", defaultValue = "${env:HEARTH_JOIN}", description = "join the cluster of the shared --store with a token from hearth admin nodes join-token: takes its keys and public URL into this data directory")
    String join;

    @Option(names = "--node", paramLabel = "NAME", defaultValue = "${env:HEARTH_NODE:-" + NodeSettings.DEFAULT_NAME + "}", description = "this server's node, when several share one --store; its data directory serves that node only (default ${DEFAULT-VALUE})")
    String node;

    @Option(names = "--node-address", paramLabel = "HOST:PORT", defaultValue = "${env:HEARTH_NODE_ADDRESS}", description = "where other nodes reach this node's API (default: the --listen address)")
    String nodeAddress;

    @Option(names = "--node-memory-mb", paramLabel = "MB", defaultValue = "${env:HEARTH_NODE_MEMORY_MB}", description = "memory this node's awake computers may be given in all; creates go to the node with the most left (default: the host's memory)")
    Long nodeMemoryMb;

    @Option(names = "--data-dir", paramLabel = "DATA_DIR", defaultValue = "${env:HEARTH_DATA_DIR:-.hearth}", description = "data directory (default ${DEFAULT-VALUE})")
    Path dataDir;

    @Option(names = "--store", paramLabel = "STORE", defaultValue = "${env:HEARTH_STORE}", description = "postgresql://user:pass@host:port/db for a shared store (default: SQLite in the data directory)")
    String store;

    @Option(names = "--public-url", paramLabel = "PUBLIC_URL", defaultValue = "${env:HEARTH_PUBLIC_URL}", description = "the {base_url} clients use, e.g. https://hearth.example.com/v1")
    String publicUrl;

    @Option(names = "--smtp-host", paramLabel = "SMTP_HOST", defaultValue = "${env:HEARTH_SMTP_HOST}", description = "SMTP server; without it mail goes to {data_dir}/outbox")
    String smtpHost;

    @Option(names = "--smtp-port", paramLabel = "SMTP_PORT", defaultValue = "${env:HEARTH_SMTP_PORT:-587}", description = "SMTP server port (default ${DEFAULT-VALUE})")
    int smtpPort;

    @Option(names = "--smtp-security", paramLabel = "SMTP_SECURITY", defaultValue = "${env:HEARTH_SMTP_SECURITY:-starttls}", description = "starttls, tls or none (default ${DEFAULT-VALUE})")
    String smtpSecurity;

    @Option(names = "--smtp-user", paramLabel = "SMTP_USER", defaultValue = "${env:HEARTH_SMTP_USER}", description = "SMTP user; the password comes from HEARTH_SMTP_PASSWORD")
    String smtpUser;

    @Option(names = "--mail-from", paramLabel = "MAIL_FROM", defaultValue = "${env:HEARTH_MAIL_FROM:-hearth@localhost}", description = "sender of sign-in and invitation mail (default ${DEFAULT-VALUE})")
    String mailFrom;

    @Option(names = "--encryption-keys", paramLabel = "ENCRYPTION_KEYS", defaultValue = "${env:HEARTH_ENCRYPTION_KEYS}", description = "AES key file for secrets at rest (default: {data_dir}/encryption-keys.json)")
    Path encryptionKeys;

    @Option(names = "--invitation-days", paramLabel = "INVITATION_DAYS", defaultValue = "${env:HEARTH_INVITATION_DAYS:-7}", description = "days an invitation stays open (default ${DEFAULT-VALUE})")
    int invitationDays;

    private NetworkSettings networkSettings() {
        Optional<List<InetSocketAddress>> upstreams = dnsUpstream == null || dnsUpstream.isEmpty() ? Optional.empty()
                : Optional.of(dnsUpstream.stream().map(ServeCommand::hostPort).toList());
        return new NetworkSettings(cidrs("--computer-allow-private", allowPrivate),
                cidrs("--computer-allow-out-private", allowOutPrivate), upstreams);
    }

    private TlsSettings tlsSettings() {
        var settings = new TlsSettings(pair("--tls-cert", tlsCert, "--tls-key", tlsKey),
                pair("--router-tls-cert", routerTlsCert, "--router-tls-key", routerTlsKey), tlsSelfSigned,
                Optional.ofNullable(redirectHttp));
        if (redirectHttp != null && (!settings.any() || redirectHttp.lastIndexOf(':') < 0)) {
            throw new IllegalArgumentException("--redirect-http must be host:port and needs a certificate "
                    + "(--tls-cert, --router-tls-cert or --tls-self-signed)");
        }
        return settings;
    }

    private SleepSettings sleepSettings(SleepSettings defaults) {
        if (warmSleepSeconds < 0 || freezeIdleAfter < 0 || memoryReserveMb != null && memoryReserveMb < 0) {
            throw new IllegalArgumentException("--warm-sleep-seconds, --freeze-idle-after and --memory-reserve-mb cannot be negative");
        }
        return new SleepSettings(Duration.ofSeconds(warmSleepSeconds),
                memoryReserveMb == null ? defaults.memoryReserveBytes() : memoryReserveMb << 20,
                Duration.ofSeconds(freezeIdleAfter));
    }

    private static Optional<String> platform(String given) {
        if (given == null || given.isBlank()) {
            return Optional.empty();
        }
        if (!given.equals("systrap") && !given.equals("ptrace")) {
            throw new IllegalArgumentException("--runsc-platform: systrap or ptrace, not " + given);
        }
        return Optional.of(given);
    }

    private static Optional<TlsFiles> pair(String certOption, Path cert, String keyOption, Path key) {
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException(certOption + " and " + keyOption + " go together");
        }
        return cert == null ? Optional.empty() : Optional.of(new TlsFiles(cert, key));
    }

    private static List<Cidr> cidrs(String option, List<String> values) {
        return values == null ? List.of() : values.stream().filter(v -> !v.isBlank()).map(v -> Cidr.parse(v)
                .orElseThrow(() -> new IllegalArgumentException(option + ": " + v + " is not an IPv4 network"))).toList();
    }

    private static InetSocketAddress hostPort(String value) {
        int colon = value.lastIndexOf(':');
        return colon < 0 ? new InetSocketAddress(value.strip(), 53)
                : new InetSocketAddress(value.substring(0, colon).strip(), Integer.parseInt(value.substring(colon + 1)));
    }

    @Override
    public Integer call() throws Exception {
        int colon = listen.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--listen must be host:port, e.g. 127.0.0.1:7300");
        }
        var config = Config.defaults(dataDir)
                .withListen(listen.substring(0, colon), Integer.parseInt(listen.substring(colon + 1)))
                .withStore(store)
                .withPublicUrl(Optional.ofNullable(publicUrl))
                .withEncryptionKeys(Optional.ofNullable(encryptionKeys))
                .withInvitationLifetime(Duration.ofDays(invitationDays));
        int routerColon = routerListen.lastIndexOf(':');
        if (routerColon < 0) {
            throw new IllegalArgumentException("--router-listen must be host:port, e.g. 127.0.0.1:7301");
        }
        config = config.withRouter(new RouterSettings(routerListen.substring(0, routerColon),
                Integer.parseInt(routerListen.substring(routerColon + 1)), routerDomain, Optional.ofNullable(routerPublicPort))
                .withPublicScheme(Optional.ofNullable(routerPublicScheme)));
        if (routerPublicScheme != null && !routerPublicScheme.matches("https?")) {
            throw new IllegalArgumentException("--router-public-scheme must be http or https");
        }
        var range = databasePorts.split("-");
        if (range.length != 2) {
            throw new IllegalArgumentException("--database-ports must be FIRST-LAST, e.g. 7400-7999");
        }
        config = config.withDatabases(new DatabaseSettings(databaseHost, databaseListen,
                Integer.parseInt(range[0].strip()), Integer.parseInt(range[1].strip()), poolerPort));
        config = config.withNetwork(networkSettings());
        config = config.withLimits(config.limits().withRequests(rateLimit, (int) Math.max(1, Math.ceil(rateLimit * 10)))
                .withAuthFailures(signInFailures).withReserve(diskReserveMb));
        config = config.withTls(tlsSettings());
        config = config.withSleep(sleepSettings(config.sleep())).withPool(PoolSettings.parse(warmPool))
                .withRunscPlatform(platform(runscPlatform));
        if (metricsListen != null && metricsListen.lastIndexOf(':') < 0) {
            throw new IllegalArgumentException("--metrics-listen must be host:port, e.g. 127.0.0.1:9464");
        }
        config = config.withMetricsListen(Optional.ofNullable(metricsListen));
        config = config.withNodes(config.nodes().withName(node).withAddress(Optional.ofNullable(nodeAddress))
                .withMemoryMb(Optional.ofNullable(nodeMemoryMb)));
        config = config.withLocalImages(localImages == null ? List.of() : localImages);
        config = config.withE2bTemplates(E2bSettings.parseTemplates(e2bTemplates == null ? null
                : String.join(",", e2bTemplates)));
        if (smtpHost != null) {
            config = config.withSmtp(new SmtpSettings(smtpHost, smtpPort, smtpSecurity, smtpUser,
                    System.getenv("HEARTH_SMTP_PASSWORD"), mailFrom));
        }
        if (join != null && !join.isBlank()) {
            config = config.withPublicUrl(Optional.of(Joining.join(config.store(), config.dataDir(),
                    config.encryptionKeyFile(), config.publicUrl(), join)));
        }
        var server = HearthServer.start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception ignored) {
                // the process is ending either way
            }
        }));
        server.join();
        return 0;
    }
}
