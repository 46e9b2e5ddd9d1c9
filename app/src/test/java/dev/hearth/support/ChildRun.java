package dev.hearth.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A test runner of another language (the SDKs', npm's, E2B's) run to its end in a directory: its exit
 * code and its output (stderr with stdout). Its last lines are printed, for the CI log.
 */
public record ChildRun(int exit, String output) {
    public static ChildRun of(Path dir, List<String> command, Map<String, String> env, int minutes)
            throws IOException, InterruptedException {
        var builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().putAll(env);
        builder.environment().remove("HEARTH_TOKEN");
        var process = builder.start();
        var out = new ByteArrayOutputStream();
        var reader = Thread.ofVirtual().start(() -> {
            try {
                process.getInputStream().transferTo(out);
            } catch (IOException e) {
                // the process was killed; what was read is kept
            }
        });
        if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
        }
        reader.join();
        String output = out.toString(StandardCharsets.UTF_8);
        String[] lines = output.strip().split("\n");
        System.out.println(dir.getFileName() + ": " + String.join(" ", command) + "\n"
                + String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 12), lines.length)));
        return new ChildRun(process.exitValue(), output);
    }
}
