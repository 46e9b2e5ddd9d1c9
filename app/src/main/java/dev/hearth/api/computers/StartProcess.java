package dev.hearth.api.computers;

import dev.hearth.api.Required;
import java.util.List;
import java.util.Map;

/**
 * {@code POST .../processes}: {@code stdin} true keeps the process's input open for {@code .../stdin};
 * {@code user} runs it as a user of the image; {@code pty} starts it on a terminal of that size (its
 * input is then the terminal's, always open, and its output the terminal's, as stdout).
 */
public record StartProcess(@Required List<String> command, Map<String, String> env, String cwd, String tag,
                           Boolean stdin, String user, Window pty) {
}
