package dev.hearth.server.router;

import java.util.Locale;
import java.util.Optional;

/**
 * What a router Host names: {@code {label}--{workspace}.{domain}}, where the label is a computer's
 * name, or its name and a published port ({@code web-8080}). The last "--" splits the two.
 */
record HostName(String label, String workspace) {

    static Optional<HostName> parse(String host, String domain) {
        if (host == null) {
            return Optional.empty();
        }
        String name = host.toLowerCase(Locale.ROOT);
        int colon = name.lastIndexOf(':');
        if (colon >= 0 && name.indexOf(']') < colon) {
            name = name.substring(0, colon);
        }
        String suffix = "." + domain.toLowerCase(Locale.ROOT);
        if (!name.endsWith(suffix)) {
            return Optional.empty();
        }
        String first = name.substring(0, name.length() - suffix.length());
        int split = first.lastIndexOf("--");
        if (first.contains(".") || split <= 0 || split + 2 >= first.length()) {
            return Optional.empty();
        }
        return Optional.of(new HostName(first.substring(0, split), first.substring(split + 2)));
    }
}
