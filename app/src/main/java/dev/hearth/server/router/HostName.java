package dev.hearth.server.router;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a router Host names: {@code {label}--{workspace}.{domain}}, where the label is a computer's
 * name, or its name and a published port ({@code web-8080}). Names may hold "--" themselves, so a
 * Host is read every way it can be split; the router takes the one whose workspace and computer exist.
 */
record HostName(String label, String workspace) {

    /** Every reading of the Host, the split at the first "--" first. */
    static List<HostName> readings(String host, String domain) {
        var first = firstLabel(host, domain);
        var readings = new ArrayList<HostName>();
        if (first.isEmpty()) {
            return readings;
        }
        String label = first.get();
        for (int split = label.indexOf("--"); split > 0; split = label.indexOf("--", split + 1)) {
            if (split + 2 < label.length()) {
                readings.add(new HostName(label.substring(0, split), label.substring(split + 2)));
            }
        }
        return readings;
    }

    private static Optional<String> firstLabel(String host, String domain) {
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
        return first.isEmpty() || first.contains(".") ? Optional.empty() : Optional.of(first);
    }
}
