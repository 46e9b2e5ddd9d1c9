package dev.hearth.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** OCI image layouts built on the spot with umoci and busybox, for tests that need an entrypoint. */
public final class TestImages {
    /** A layout that does not exist, in a directory test servers allow local images in: pulling it fails. */
    /** Images kept between runs, in the build directory. */
    public static final Path CACHE = Path.of("target", "test-images").toAbsolutePath();
    public static final String MISSING_LAYOUT = "oci:" + Path.of(System.getProperty("java.io.tmpdir"), "hearth-no-such-layout");

    /**
     * The pid of a counter's main process, once it has written it: a computer is ready when its sandbox
     * runs, which can be a moment before PID 1 has started the main process and it has written its file.
     */
    public static final String COUNTER_PID =
            "i=0; while [ ! -s /tmp/counter.pid ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; cat /tmp/counter.pid";

    private TestImages() {
    }

    /**
     * An image whose main process keeps a counter in memory only and writes it to /tmp/count (whole, by rename) every
     * 50 ms (its pid in /tmp/counter.pid): the counter goes on after a wake only if memory came back.
     */
    public static String counter(Path dir) throws Exception {
        return build(dir, "echo $$ > /tmp/counter.pid; i=0; while :; do i=$((i+1)); echo $i > /tmp/count.new; mv /tmp/count.new /tmp/count; sleep 0.05; done");
    }

    /**
     * Like {@link #counter}, and each count is also appended to /data/log every 20 ms (env LOG_EVERY, in seconds): after a restore the
     * log must run on from the restored memory without a gap or a repeat, which holds only if memory and
     * /data were captured at the same instant.
     */
    public static String logger(Path dir) throws Exception {
        return build(dir, "echo $$ > /tmp/counter.pid; i=0; while :; do i=$((i+1)); echo $i >> /data/log; echo $i > /tmp/count.new; mv /tmp/count.new /tmp/count; sleep ${LOG_EVERY:-0.02}; done");
    }

    /**
     * A web computer: busybox httpd on 8080 serving /www (CGI in /www/cgi-bin: {@code echo} shows the
     * request's method, Host, X-Forwarded-* and body size; {@code big} sends 20 MB; {@code slow} answers
     * after 4 s), and on 9000 a WebSocket server in sh that greets with "hello" and answers each text
     * message m (under 100 bytes) with "echo:m".
     */
    public static String web(Path dir) throws Exception {
        var files = new LinkedHashMap<String, String>();
        files.put("www/index.html", "hello from the computer\n");
        files.put("www/cgi-bin/echo", """
                #!/bin/sh
                printf 'Content-Type: text/plain\\r\\n\\r\\n'
                echo "method=$REQUEST_METHOD"
                echo "host=$HTTP_HOST"
                echo "xff=$HTTP_X_FORWARDED_FOR"
                echo "xfproto=$HTTP_X_FORWARDED_PROTO"
                echo "xfhost=$HTTP_X_FORWARDED_HOST"
                echo "body=$(head -c ${CONTENT_LENGTH:-0} | wc -c | tr -d ' ')"
                """);
        files.put("www/cgi-bin/big", """
                #!/bin/sh
                printf 'Content-Type: application/octet-stream\\r\\n\\r\\n'
                head -c 20000000 /dev/zero
                """);
        files.put("www/cgi-bin/slow", """
                #!/bin/sh
                sleep 4
                printf 'Content-Type: text/plain\\r\\n\\r\\nslept\\n'
                """);
        files.put("ws.sh", """
                #!/bin/sh
                key=
                while IFS= read -r line; do
                  line=$(printf %s "$line" | tr -d '\\r')
                  [ -z "$line" ] && break
                  case "$line" in [Ss]ec-[Ww]eb[Ss]ocket-[Kk]ey:*) key=${line#*: };; esac
                done
                accept=$(printf %s "${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11" | sha1sum | cut -c1-40 | xxd -r -p | base64)
                printf 'HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: %s\\r\\n\\r\\n' "$accept"
                printf '\\201\\005hello'
                bytes() { dd bs=1 count=$1 2>/dev/null | od -An -tu1; }
                while :; do
                  set -- $(bytes 2)
                  [ $# -lt 2 ] && exit 0
                  op=$(( $1 & 15 )); len=$(( $2 & 127 ))
                  set -- $(bytes 4)
                  m0=$1; m1=$2; m2=$3; m3=$4
                  if [ $op -eq 8 ]; then printf '\\210\\000'; exit 0; fi
                  out=; i=0
                  for b in $(bytes $len); do
                    case $((i % 4)) in 0) m=$m0;; 1) m=$m1;; 2) m=$m2;; *) m=$m3;; esac
                    out="$out\\\\$(printf %03o $(( b ^ m )))"
                    i=$((i + 1))
                  done
                  reply="echo:$(printf "$out")"
                  printf "\\201\\\\$(printf %03o ${#reply})%s" "$reply"
                done
                """);
        return build(dir, "httpd -f -p 8080 -h /www & nc -ll -p 9000 -e /ws.sh & wait", files);
    }

    /**
     * A Debian bookworm image (glibc, bash, python3, procps) whose CMD is {@code /bin/bash}, as Docker
     * Hub's debian image has: made once per build directory by mmdebstrap from Debian's packages
     * (about 30 s; the one download the tests make, like apt's in ./run-tests) and kept in target/.
     */
    public static synchronized String debian() throws Exception {
        Path dir = CACHE.resolve("debian");
        Path layout = dir.resolve("layout");
        if (!Files.exists(dir.resolve("complete"))) {
            sh("rm -rf " + dir + " && mkdir -p " + dir
                    + " && mmdebstrap --quiet --variant=minbase --include=python3-minimal,procps bookworm "
                    + dir.resolve("rootfs.tar") + " http://deb.debian.org/debian"
                    + " && umoci init --layout " + layout + " && umoci new --image " + layout + ":v1"
                    + " && umoci unpack --image " + layout + ":v1 " + dir.resolve("bundle")
                    + " && tar -C " + dir.resolve("bundle/rootfs") + " -xf " + dir.resolve("rootfs.tar")
                    + " && umoci repack --image " + layout + ":v1 " + dir.resolve("bundle")
                    + " && umoci config --image " + layout + ":v1 --config.cmd /bin/bash"
                    + " --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
                    + " && rm -rf " + dir.resolve("bundle") + " " + dir.resolve("rootfs.tar")
                    + " && touch " + dir.resolve("complete"));
        }
        return "oci:" + layout + ":v1";
    }

    /**
     * E2B's template {@code base} as {@code ./hearth serve} makes it (scripts/build-e2b-base: Debian
     * bookworm with bash, sudo, python3, git, curl, Node.js and the user {@code user}), made once per build
     * directory from Debian's packages (about a minute) and kept in target/.
     */
    public static synchronized String e2bBase() throws Exception {
        Path dir = CACHE.resolve("e2b-base");
        sh(Repository.root().resolve("scripts/build-e2b-base") + " " + dir);
        return "oci:" + dir.resolve("layout") + ":base";
    }

    /** An image with nothing but one static program (no shell, no libc), which is its entrypoint. */
    public static String only(Path dir, String program) throws Exception {
        Path source = Files.writeString(Files.createDirectories(dir.resolve("programs")).resolve("only.c"), program);
        Path binary = dir.resolve("programs/only");
        Path layout = dir.resolve("layout");
        Path bundle = dir.resolve("bundle");
        sh("gcc -static -Os -o " + binary + " " + source
                + " && umoci init --layout " + layout + " && umoci new --image " + layout + ":v1"
                + " && umoci unpack --image " + layout + ":v1 " + bundle
                + " && install -D -m 755 " + binary + " " + bundle.resolve("rootfs/only")
                + " && umoci repack --image " + layout + ":v1 " + bundle
                + " && umoci config --image " + layout + ":v1 --config.entrypoint /only");
        return "oci:" + layout + ":v1";
    }

    /** An image with busybox in /bin whose entrypoint is {@code /bin/sh -c script}; answers its oci: reference. */
    public static String build(Path dir, String script) throws Exception {
        return build(dir, script, Map.of());
    }

    /** The same, with extra executable files (path in the root file system to content). */
    public static String build(Path dir, String script, Map<String, String> files) throws Exception {
        return build(dir, script, files, Map.of());
    }

    /** The same, with programs compiled from C (path in the root file system to source), static so the image needs no libc. */
    public static String withPrograms(Path dir, String script, Map<String, String> programs) throws Exception {
        var binaries = new LinkedHashMap<String, Path>();
        Path built = Files.createDirectories(dir.resolve("programs"));
        for (var program : programs.entrySet()) {
            Path source = Files.writeString(Files.createTempFile(built, "program", ".c"), program.getValue());
            Path binary = built.resolve(source.getFileName() + ".bin");
            sh("gcc -static -Os -o " + binary + " " + source);
            binaries.put(program.getKey(), binary);
        }
        return build(dir, script, Map.of(), binaries);
    }

    private static String build(Path dir, String script, Map<String, String> files, Map<String, Path> binaries)
            throws Exception {
        Path layout = dir.resolve("layout");
        Path bundle = dir.resolve("bundle");
        sh("umoci init --layout " + layout + " && umoci new --image " + layout + ":v1"
                + " && umoci unpack --image " + layout + ":v1 " + bundle
                + " && mkdir -p " + bundle + "/rootfs/bin && cp /bin/busybox " + bundle + "/rootfs/bin/"
                + " && chroot " + bundle + "/rootfs /bin/busybox --install -s /bin"
                + addFiles(dir, bundle.resolve("rootfs"), files) + copy(bundle.resolve("rootfs"), binaries)
                + " && umoci repack --image " + layout + ":v1 " + bundle
                + " && umoci config --image " + layout + ":v1 --config.entrypoint /bin/sh --config.cmd -c"
                + " --config.cmd '" + script.replace("'", "'\\''") + "' --config.env PATH=/bin");
        return "oci:" + layout + ":v1";
    }

    /** Copies of {@code files} staged in the build directory, so they go with it (not left in /tmp). */
    private static String addFiles(Path dir, Path rootfs, Map<String, String> files) throws Exception {
        var commands = new StringBuilder();
        Path staged = Files.createDirectories(dir.resolve("files"));
        for (var file : files.entrySet()) {
            Path target = rootfs.resolve(file.getKey());
            Path source = Files.createTempFile(staged, "file", "");
            Files.writeString(source, file.getValue());
            commands.append(" && mkdir -p ").append(target.getParent()).append(" && cp ").append(source).append(' ')
                    .append(target).append(" && chmod 755 ").append(target);
        }
        return commands.toString();
    }

    private static String copy(Path rootfs, Map<String, Path> binaries) {
        var commands = new StringBuilder();
        binaries.forEach((path, binary) -> commands.append(" && install -D -m 755 ").append(binary).append(' ')
                .append(rootfs.resolve(path)));
        return commands.toString();
    }

    private static void sh(String script) throws Exception {
        var p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
    }
}
