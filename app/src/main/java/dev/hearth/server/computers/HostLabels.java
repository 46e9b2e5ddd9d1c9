package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.workspaces.Contents;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A computer's URL hosts, {@code {cmp}--{ws}} and {@code {cmp}-{port}--{ws}} under the router's domain: each is
 * one DNS label, which holds 63 characters, so the two names together must fit in it.
 */
final class HostLabels {
    static final int MAX = 63;

    private HostLabels() {
    }

    static String of(String computer, String workspace) {
        return computer + "--" + workspace;
    }

    static String of(String computer, int published, String workspace) {
        return published == 80 ? of(computer, workspace) : computer + "-" + published + "--" + workspace;
    }

    /** Refuses names whose URL would not be a host name; {@code field} is the one the caller set. */
    static void require(String field, String computer, List<Computer.Port> ports, String workspace) {
        longest(computer, ports, workspace).filter(label -> label.length() > MAX).ifPresent(label -> {
            throw ApiException.invalidField(field, "computer " + computer + "'s URL would start with " + label + ", "
                    + label.length() + " characters, and a DNS label holds " + MAX
                    + ": the computer's and the workspace's names (and a port) must fit in it together");
        });
    }

    /** A workspace's computers, counted, and refusing a new workspace name too long for one of their URLs. */
    static Contents contents(ComputerStore store) {
        return new Contents("computers", store::countLive, (h, ws, newName) -> store.page(h, ws,
                new PageRequest(Integer.MAX_VALUE - 1, Optional.empty())).forEach(c ->
                require("name", c.name(), c.settings().ports(), newName)));
    }

    private static Optional<String> longest(String computer, List<Computer.Port> ports, String workspace) {
        return Stream.concat(Stream.of(of(computer, workspace)),
                ports.stream().map(p -> of(computer, p.published(), workspace)))
                .max(Comparator.comparingInt(String::length));
    }
}
