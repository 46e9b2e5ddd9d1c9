package dev.hearth.bench;

import dev.hearth.bench.RawHttp.Answer;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * One load client: a kept-alive connection sending a weighted mix of what users of a workspace do
 * at once, each request timed and kept as a {@link Sample}. The mix: reads (lists and gets), writes
 * (variables created and deleted, patches), key rotations, idempotent creates of which a third are
 * sent twice (the retry must replay, not create again), and execs in the computers.
 */
final class LoadMix {
    /** One request: its kind, status (0: no answer), latency, and for a retry whether it was replayed. */
    record Sample(String kind, int status, long micros, boolean replayed) {
    }

    /** What the clients share: the workspace and the resources made before the run. */
    record Targets(String ws, List<String> variables, List<String> principals, List<String> computers,
                   Supplier<String> token) {
    }

    // Cumulative weights out of 100: reads 40, writes 25, key rotations 5, idempotent creates 10, execs 20.
    private static final int LIST = 20;
    private static final int GET = 40;
    private static final int VARIABLE = 55;
    private static final int PATCH = 65;
    private static final int ROTATE = 70;
    private static final int IDEMPOTENT = 80;
    // Each client deletes its own variables once it holds this many, so the workspace does not grow without end.
    private static final int OWN_VARIABLES = 10;

    private final int client;
    private final Targets targets;
    private final RawHttp http;
    private final List<Sample> samples = new ArrayList<>();
    private final ArrayDeque<String> own = new ArrayDeque<>();
    /** Each mix (one a client per phase: warm-up, measured) names its variables apart: a warm-up one may remain. */
    private static final AtomicInteger PHASES = new AtomicInteger();
    private final int phase = PHASES.incrementAndGet();
    private int created;

    LoadMix(int client, Targets targets, RawHttp http) {
        this.client = client;
        this.targets = targets;
        this.http = http;
    }

    /** Sends requests until {@code running} turns false; returns what it timed. */
    List<Sample> run(BooleanSupplier running) {
        var random = ThreadLocalRandom.current();
        while (running.getAsBoolean()) {
            int dice = random.nextInt(100);
            if (dice < LIST) {
                list(random);
            } else if (dice < GET) {
                get(random);
            } else if (dice < VARIABLE) {
                writeVariable();
            } else if (dice < PATCH) {
                patch(random);
            } else if (dice < ROTATE) {
                String principal = pick(targets.principals(), random);
                send("rotate key", "POST", "/workspaces/" + targets.ws() + "/access/" + principal + "/rotate_key", null,
                        List.of());
            } else if (dice < IDEMPOTENT) {
                idempotentCreate(random.nextInt(3) == 0);
            } else {
                send("exec", "POST", "/computers/" + pick(targets.computers(), random) + "/exec",
                        "{\"command\": [\"/bin/true\"]}", List.of());
            }
        }
        http.close();
        return samples;
    }

    private void list(ThreadLocalRandom random) {
        String ws = "/workspaces/" + targets.ws();
        String path = pick(List.of(ws + "/variables", ws + "/computers", ws + "/access", "/workspaces"), random);
        send("list", "GET", path, null, List.of());
    }

    private void get(ThreadLocalRandom random) {
        String path = pick(List.of("/workspaces/" + targets.ws(), "/variables/" + pick(targets.variables(), random),
                "/computers/" + pick(targets.computers(), random), "/me"), random);
        send("get", "GET", path, null, List.of());
    }

    private void writeVariable() {
        if (own.size() >= OWN_VARIABLES) {
            send("delete variable", "DELETE", "/variables/" + own.removeFirst(), null, List.of());
            return;
        }
        var answer = send("create variable", "POST", "/workspaces/" + targets.ws() + "/variables", newVariable(),
                List.of("Idempotency-Key: " + UUID.randomUUID()));
        keep(answer);
    }

    /** Patches spread over the seed variables and the principals' descriptions, so that clients rarely collide. */
    private void patch(ThreadLocalRandom random) {
        String value = "\"v" + random.nextInt(1_000_000) + "\"";
        if (random.nextBoolean()) {
            send("patch", "PATCH", "/variables/" + targets.variables().get(client % targets.variables().size()),
                    "{\"value\": " + value + "}", List.of());
        } else {
            send("patch", "PATCH", "/workspaces/" + targets.ws() + "/access/" + pick(targets.principals(), random),
                    "{\"description\": " + value + "}", List.of());
        }
    }

    /** A create with a key; a retry sends the same key and body at once, as a client that lost the answer would. */
    private void idempotentCreate(boolean retry) {
        String path = "/workspaces/" + targets.ws() + "/variables";
        String body = newVariable();
        var key = List.of("Idempotency-Key: load-" + UUID.randomUUID());
        var first = send("idempotent create", "POST", path, body, key);
        keep(first);
        if (retry) {
            send("idempotent retry", "POST", path, body, key);
        }
    }

    private String newVariable() {
        return "{\"name\": \"load-" + client + "-" + phase + "-" + created++ + "\", \"value\": \"x\"}";
    }

    /** Remembers a created variable's id, to delete it later. */
    private void keep(Answer answer) {
        if (answer != null && answer.status() == 201) {
            String text = answer.text();
            int at = text.indexOf("\"id\":\"");
            if (at >= 0) {
                own.addLast(text.substring(at + 6, text.indexOf('"', at + 6)));
            }
        }
    }

    private Answer send(String kind, String method, String path, String json, List<String> headers) {
        long start = System.nanoTime();
        try {
            var answer = http.json(method, "/v1" + path, targets.token().get(), json, headers);
            samples.add(new Sample(kind, answer.status(), (System.nanoTime() - start) / 1000,
                    "true".equals(answer.header("idempotent-replayed"))));
            return answer;
        } catch (IOException e) {
            samples.add(new Sample(kind, 0, (System.nanoTime() - start) / 1000, false));
            return null;
        }
    }

    private static String pick(List<String> from, ThreadLocalRandom random) {
        return from.get(random.nextInt(from.size()));
    }
}
