package dev.hearth.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

/** OCI image layouts built on the spot with umoci and busybox, for tests that need an entrypoint. */
public final class TestImages {
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
     * Like {@link #counter}, and each count is also appended to /data/log every 20 ms: after a restore the
     * log must run on from the restored memory without a gap or a repeat, which holds only if memory and
     * /data were captured at the same instant.
     */
    public static String logger(Path dir) throws Exception {
        return build(dir, "echo $$ > /tmp/counter.pid; i=0; while :; do i=$((i+1)); echo $i >> /data/log; echo $i > /tmp/count.new; mv /tmp/count.new /tmp/count; sleep 0.02; done");
    }

    /** An image with busybox in /bin whose entrypoint is {@code /bin/sh -c script}; answers its oci: reference. */
    public static String build(Path dir, String script) throws Exception {
        Path layout = dir.resolve("layout");
        Path bundle = dir.resolve("bundle");
        sh("umoci init --layout " + layout + " && umoci new --image " + layout + ":v1"
                + " && umoci unpack --image " + layout + ":v1 " + bundle
                + " && mkdir -p " + bundle + "/rootfs/bin && cp /bin/busybox " + bundle + "/rootfs/bin/"
                + " && chroot " + bundle + "/rootfs /bin/busybox --install -s /bin"
                + " && umoci repack --image " + layout + ":v1 " + bundle
                + " && umoci config --image " + layout + ":v1 --config.entrypoint /bin/sh --config.cmd -c"
                + " --config.cmd '" + script.replace("'", "'\\''") + "' --config.env PATH=/bin");
        return "oci:" + layout + ":v1";
    }

    private static void sh(String script) throws Exception {
        var p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
    }
}
