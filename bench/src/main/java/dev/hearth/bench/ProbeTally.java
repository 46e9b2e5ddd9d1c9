package dev.hearth.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.Json;
import dev.hearth.bench.ProbeCases.Probe;
import dev.hearth.bench.RawHttp.Answer;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Judges every answer the probe gets: no 5xx (but 503 runtime_unavailable where computers or
 * databases cannot run); every error (status 400 and up) is the envelope
 * {@code {"error": {code, message, details, request_id}}} with a matching X-Request-Id header; once
 * given the OpenAPI document, every status and code is one it promises for the operation; no answer
 * takes over 2 s; and every request gets an answer. Offences of one method, case, status and
 * reason are one line, with how many requests and which routes, and the first as the example: a
 * fault every route shares reads as one line, not a hundred.
 */
final class ProbeTally {
    static final double SLOW_MS = 2000;

    /** One kind of offence: its first example, how often, and on which route templates. */
    private record Offence(String example, AtomicLong count, TreeSet<String> templates) {
        String line() {
            String where = templates.size() <= 3 ? String.join(", ", templates) : templates.size() + " routes";
            return count.get() + "x on " + where + ", e.g. " + example;
        }
    }

    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong serverErrors = new AtomicLong();
    private final AtomicLong nonEnvelope = new AtomicLong();
    private final AtomicLong slow = new AtomicLong();
    private final AtomicLong noAnswer = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong undocumented = new AtomicLong();
    private volatile Documented documented;
    private final Map<String, Offence> offences = new LinkedHashMap<>();
    // Not offences, but a bad request that changed something deserves a look.
    private final Map<String, Offence> acceptedWrites = new LinkedHashMap<>();

    /** From now on, answers are also judged against the served OpenAPI document. */
    void documentedBy(Documented doc) {
        this.documented = doc;
    }

    /** No 5xx, no error outside the envelope, nothing the document does not promise, and every request answered. */
    boolean clean() {
        return serverErrors.get() == 0 && nonEnvelope.get() == 0 && undocumented.get() == 0 && noAnswer.get() == 0;
    }

    /** Records one probe's answer (empty: none came, for {@code failure}) and returns it. */
    Optional<Answer> judge(Probe probe, Optional<Answer> answer, String failure) {
        requests.incrementAndGet();
        if (answer.isEmpty()) {
            noAnswer.incrementAndGet();
            note(offences, probe, "no answer", 0, failure);
            return answer;
        }
        var a = answer.get();
        if (a.status() >= 500 && !expected503(a)) {
            serverErrors.incrementAndGet();
            note(offences, probe, "5xx", a.status(), a.text());
        }
        if (a.status() >= 400) {
            envelopeProblem(a).ifPresent(problem -> {
                nonEnvelope.incrementAndGet();
                note(offences, probe, "non-envelope (" + problem + ")", a.status(), a.text());
            });
        } else if (a.status() < 300 && !probe.method().equals("GET")) {
            accepted.incrementAndGet();
            note(acceptedWrites, probe, "accepted", a.status(), a.text());
        }
        var doc = documented;
        if (doc != null) {
            doc.problem(probe, a).ifPresent(problem -> {
                undocumented.incrementAndGet();
                note(offences, probe, "undocumented (" + problem + ")", a.status(), a.text());
            });
        }
        if (a.millis() > SLOW_MS) {
            slow.incrementAndGet();
            note(offences, probe, "slow (>2 s)", a.status(), String.format("%.1f s; %s", a.millis() / 1000, a.text()));
        }
        return answer;
    }

    /**
     * A 503 saying computers or databases cannot run here is the truth on a host without them, not a
     * fault (the document lists it for those routes).
     */
    private static boolean expected503(Answer a) {
        return a.status() == 503 && a.text().contains("\"code\":\"runtime_unavailable\"");
    }

    /** What is wrong with an error answer's envelope, if anything. */
    static Optional<String> envelopeProblem(Answer a) {
        String requestId = a.header("x-request-id");
        if (requestId == null || requestId.isBlank()) {
            return Optional.of(a.body().length == 0 ? "empty body, no X-Request-Id" : "no X-Request-Id");
        }
        JsonNode body;
        try {
            body = Json.mapper().readTree(a.body());
        } catch (IOException e) {
            return Optional.of("body is not JSON");
        }
        if (body == null || !body.isObject() || body.size() != 1 || !body.path("error").isObject()) {
            return Optional.of("not {\"error\": {...}}");
        }
        JsonNode error = body.path("error");
        if (!error.path("code").isTextual() || !error.path("message").isTextual() || !error.path("details").isObject()) {
            return Optional.of("error lacks code, message or details");
        }
        if (!requestId.equals(error.path("request_id").asText(null))) {
            return Optional.of("request_id differs from X-Request-Id");
        }
        return Optional.empty();
    }

    private synchronized void note(Map<String, Offence> into, Probe probe, String why, int status, String body) {
        // the case without the parameter's name, so that "{ws} = %FF" and "{var} = %FF" are one kind
        String kase = probe.kase().replaceAll("^\\{[^}]+} = ", "{param} = ");
        String key = probe.method() + " | " + kase + " | " + status + " | " + why;
        into.computeIfAbsent(key, k -> new Offence(String.format("%s %s [%s] -> %s %s: %s", probe.method(),
                        shorten(probe.target()), probe.kase(), status == 0 ? "-" : status, why, snippet(body)),
                        new AtomicLong(), new TreeSet<>()))
                .count().incrementAndGet();
        into.get(key).templates().add(probe.method() + " " + probe.template());
    }

    private static String shorten(String target) {
        return target.length() <= 120 ? target : target.substring(0, 100) + "…(" + target.length() + " chars)";
    }

    private static String snippet(String body) {
        String flat = body == null ? "" : body.replaceAll("\\s+", " ").strip();
        return flat.length() <= 160 ? flat : flat.substring(0, 160) + "…";
    }

    /** The accepted writes, the offending lines, then the counts, last. */
    synchronized void print() {
        System.out.println();
        if (!acceptedWrites.isEmpty()) {
            System.out.println("bad-input writes answered 2xx (not offences; check each was meant):");
            acceptedWrites.values().forEach(o -> System.out.println("  " + o.line()));
            System.out.println();
        }
        System.out.println(offences.isEmpty() ? "no offending answers" : "offending answers (" + offences.size()
                + " kinds):");
        offences.values().forEach(o -> System.out.println("  " + o.line()));
        System.out.println();
        System.out.printf("requests %d, 5xx %d, non-envelope errors %d, answers the OpenAPI document does not "
                + "promise %d, slow (>2 s) %d, no answer %d, bad-input writes answered 2xx %d%n", requests.get(),
                serverErrors.get(), nonEnvelope.get(), undocumented.get(), slow.get(), noAnswer.get(), accepted.get());
    }
}
