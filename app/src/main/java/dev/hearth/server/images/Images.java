package dev.hearth.server.images;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import dev.hearth.fs.Disk;
import dev.hearth.server.process.Commands;
import dev.hearth.server.store.Ids;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * OCI images on this host: pulled with skopeo into an OCI layout, unpacked once per manifest digest
 * with umoci, shared read-only by every computer using them. {@code hearth/busybox} is built
 * locally from busybox-static, so nothing needs a registry.
 */
public final class Images {
    public static final String BUILTIN = "hearth/busybox";
    private static final Duration PULL = Duration.ofMinutes(10);
    private static final Duration QUICK = Duration.ofSeconds(60);
    private static final Pattern TRANSPORT = Pattern.compile("^(docker://|oci:|oci-archive:|docker-archive:)\\S+$");
    private static final Pattern LOCAL = Pattern.compile("^(oci|oci-archive|docker-archive):([^:]*)(:.*)?$");
    private static final Pattern BARE = Pattern.compile("^[a-z0-9][a-z0-9._/:@-]{0,254}$");

    /** A reference that cannot be pulled, with the reason. */
    public static final class PullFailure extends RuntimeException {
        public PullFailure(String message) {
            super(message);
        }
    }

    private final Path dir;
    private final List<Path> localDirs;
    // Unpacked images never change: their config is read from disk once per digest.
    private final Map<String, Image> loaded = new ConcurrentHashMap<>();

    /** {@code localDirs}: the only directories whose layouts and archives a reference may name (the operator's). */
    public Images(Path dir, List<Path> localDirs) {
        this.dir = dir;
        this.localDirs = localDirs.stream().map(d -> d.toAbsolutePath().normalize()).toList();
    }

    /**
     * Checks a reference's form: a registry name (bare or docker://), or a local layout or archive under one of
     * the operator's directories. The check reads no file, so it tells a caller nothing about the host's paths.
     */
    public Optional<String> invalid(String reference) {
        var local = LOCAL.matcher(reference);
        if (local.matches()) {
            return allowedLocal(local.group(2)) ? Optional.empty() : Optional.of("a local image (oci:, oci-archive:, "
                    + "docker-archive:) must lie under a directory the operator allows with hearth serve --local-images");
        }
        if (reference.equals(BUILTIN) || TRANSPORT.matcher(reference).matches() || BARE.matcher(reference).matches()) {
            return Optional.empty();
        }
        return Optional.of("must be hearth/busybox, a registry name like docker.io/library/alpine:3 or "
                + "docker://…, or a local oci:DIR:TAG, oci-archive:FILE or docker-archive:FILE the operator allows");
    }

    private boolean allowedLocal(String path) {
        if (path.isEmpty() || !path.startsWith("/") || path.contains("\0")) {
            return false;
        }
        Path normal = Path.of(path).normalize();
        return localDirs.stream().anyMatch(normal::startsWith);
    }

    /** Whether the image is made here rather than pulled, so a computer of it can start at once. */
    public static boolean isLocal(String reference) {
        return reference.equals(BUILTIN);
    }

    /** Pulls (or builds) and unpacks the image; the digest decides whether it is unpacked anew. */
    public Image resolve(String reference) {
        if (reference.equals(BUILTIN)) {
            return builtin();
        }
        Path work = tempDir("pull-");
        Path layout = work.resolve("layout");
        try {
            var copy = new ArrayList<>(List.of("skopeo", "copy", "--quiet"));
            if (plainHttpRegistry(reference)) {
                copy.add("--src-tls-verify=false");
            }
            copy.addAll(List.of(source(reference), "oci:" + layout + ":image"));
            var result = Commands.run(copy, PULL);
            if (!result.ok()) {
                throw new PullFailure("cannot pull " + reference + ": " + result.stderr().strip());
            }
            return unpack(reference, layout);
        } finally {
            Disk.deleteTree(work);
        }
    }

    private static String source(String reference) {
        return TRANSPORT.matcher(reference).matches() ? reference : "docker://" + reference;
    }

    /** Registries on this machine's loopback speak plain HTTP (the test registry does). */
    private static boolean plainHttpRegistry(String reference) {
        String name = reference.startsWith("docker://") ? reference.substring(9) : reference;
        return name.startsWith("127.") || name.startsWith("localhost:") || name.startsWith("localhost/");
    }

    private synchronized Image builtin() {
        Path marker = dir.resolve("builtin-digest");
        try {
            if (Files.exists(marker)) {
                var image = load(BUILTIN, Files.readString(marker).strip());
                if (image.isPresent()) {
                    return image.get();
                }
            }
            Path work = tempDir("builtin-");
            try {
                Path layout = work.resolve("layout");
                buildBusybox(layout, work.resolve("bundle"));
                var image = unpack(BUILTIN, layout);
                Files.writeString(marker, image.digest());
                return image;
            } finally {
                Disk.deleteTree(work);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void buildBusybox(Path layout, Path bundle) throws IOException {
        {
            Commands.check(List.of("umoci", "init", "--layout", layout.toString()), QUICK);
            Commands.check(List.of("umoci", "new", "--image", layout + ":image"), QUICK);
            Commands.check(List.of("umoci", "unpack", "--image", layout + ":image", bundle.toString()), QUICK);
            Path rootfs = bundle.resolve("rootfs");
            for (String d : List.of("bin", "sbin", "usr/bin", "usr/sbin", "etc", "tmp", "root", "data", "proc", "sys", "dev")) {
                Files.createDirectories(rootfs.resolve(d));
            }
            Files.copy(Path.of("/bin/busybox"), rootfs.resolve("bin/busybox"), StandardCopyOption.REPLACE_EXISTING);
            Commands.check(List.of("chroot", rootfs.toString(), "/bin/busybox", "--install", "-s"), QUICK);
            Files.writeString(rootfs.resolve("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
            Files.writeString(rootfs.resolve("etc/group"), "root:x:0:\n");
            Commands.check(List.of("umoci", "repack", "--image", layout + ":image", bundle.toString()), QUICK);
            Commands.check(List.of("umoci", "config", "--image", layout + ":image",
                    "--config.env", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "--config.workingdir", "/"), QUICK);
        }
    }

    /** Unpacks the layout's image under its manifest digest, unless that digest is here already. */
    private Image unpack(String reference, Path layout) {
        try {
            JsonNode index = Json.mapper().readTree(layout.resolve("index.json").toFile());
            String digest = index.path("manifests").get(0).path("digest").asText();
            var existing = load(reference, digest);
            if (existing.isPresent()) {
                return existing.get();
            }
            Path target = dir.resolve(digest.replace(':', '-'));
            Path staging = tempDir("unpack-");
            Commands.check(List.of("umoci", "raw", "unpack", "--image", layout + ":image", staging.resolve("rootfs").toString()), PULL);
            // Unprivileged and bind-mounted readers alike must traverse the shared rootfs.
            staging.toFile().setExecutable(true, false);
            staging.toFile().setReadable(true, false);
            Files.writeString(staging.resolve("config.json"), Json.mapper().writeValueAsString(config(layout, digest)));
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException raced) {
                Disk.deleteTree(staging);
            }
            return load(reference, digest).orElseThrow();
        } catch (IOException | Commands.Failure e) {
            throw new PullFailure("cannot unpack " + reference + ": " + e.getMessage());
        }
    }

    private static Image.Config config(Path layout, String manifestDigest) throws IOException {
        JsonNode manifest = Json.mapper().readTree(blob(layout, manifestDigest).toFile());
        JsonNode config = Json.mapper().readTree(blob(layout, manifest.path("config").path("digest").asText()).toFile())
                .path("config");
        return new Image.Config(strings(config.path("Entrypoint")), strings(config.path("Cmd")),
                strings(config.path("Env")), config.path("WorkingDir").asText(""));
    }

    private static Path blob(Path layout, String digest) {
        String[] parts = digest.split(":", 2);
        return layout.resolve("blobs").resolve(parts[0]).resolve(parts[1]);
    }

    private static List<String> strings(JsonNode array) {
        var list = new ArrayList<String>();
        array.forEach(n -> list.add(n.asText()));
        return List.copyOf(list);
    }

    /**
     * Where the image of a manifest digest is unpacked (its {@code rootfs} and {@code config.json}), or
     * would be: another node ships it there, in one rename, when a computer moves here with it.
     */
    public Path unpackedAt(String digest) {
        return dir.resolve(digest.replace(':', '-'));
    }

    /** An image unpacked here already, by the digest a computer recorded. */
    public Optional<Image> unpacked(String reference, String digest) {
        try {
            return digest == null ? Optional.empty() : load(reference, digest);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Optional<Image> load(String reference, String digest) throws IOException {
        var known = loaded.get(digest);
        if (known != null && Files.isDirectory(known.rootfs())) {
            return Optional.of(new Image(reference, digest, known.rootfs(), known.config()));
        }
        Path target = dir.resolve(digest.replace(':', '-'));
        if (!Files.isDirectory(target.resolve("rootfs")) || !Files.exists(target.resolve("config.json"))) {
            return Optional.empty();
        }
        var config = Json.mapper().readValue(target.resolve("config.json").toFile(), Image.Config.class);
        var image = new Image(reference, digest, target.resolve("rootfs"), config);
        loaded.put(digest, image);
        return Optional.of(image);
    }

    /** Removes unpacked images no computer uses any more (the built-in one is kept). */
    public void collectGarbage(Set<String> digestsInUse) {
        try (Stream<Path> entries = Files.list(dir)) {
            String builtin = Files.exists(dir.resolve("builtin-digest")) ? Files.readString(dir.resolve("builtin-digest")).strip() : "";
            for (Path p : entries.filter(Files::isDirectory).toList()) {
                String digest = p.getFileName().toString().replaceFirst("-", ":");
                if (digest.startsWith("sha256:") && !digestsInUse.contains(digest) && !digest.equals(builtin)) {
                    loaded.remove(digest);
                    Disk.deleteTree(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path tempDir(String prefix) {
        try {
            Files.createDirectories(dir.resolve("tmp"));
            return Files.createDirectory(dir.resolve("tmp").resolve(prefix + Ids.next()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
