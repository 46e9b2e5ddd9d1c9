package dev.hearth.cli;

import dev.hearth.api.JsonTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;

/**
 * Work that every client command does on its fresh JVM, begun on the second core while the main
 * thread sets picocli up: JSON read and written once (jackson-core's first parser and generator) and
 * the JDK's security providers, which the token cache's digest loads. Class initialisation is
 * thread-safe: what the command reaches before it is ready, it waits for. (Making the annotation
 * proxies picocli needs here as well measured slower: both cores are busy already.)
 */
public final class Warmup {
    private Warmup() {
    }

    /** Starts the warm-up unless {@code args} run the service. */
    public static void start(String[] args) {
        if (args.length == 0 || !args[0].equals("serve")) {
            Thread.ofPlatform().daemon().name("hearth-warmup").start(Warmup::run);
        }
    }

    private static void run() {
        if (System.getProperty("wu") != null) for (var m : Object.class.getDeclaredMethods()) m.getAnnotations();
        try {
            // Escapes and non-ASCII text take the parser's slower paths, which answers have too.
            String json = "{\"a\":[1,\"b\\n\\u00e9\u00e9\",true,null,1.5]}";
            JsonTrees.read(json);
            JsonTrees.read(json.getBytes(StandardCharsets.UTF_8));
            JsonTrees.text(Map.of("a", List.of(1, "b", true)));
            MessageDigest.getInstance("SHA-256");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
