package dev.hearth.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Steps timed in turns, each round running every step once, so that a noisy stretch of the machine
 * falls on all of them alike: {@code warm} rounds not kept, then {@code calls} rounds kept, in ms.
 */
final class Interleaved {
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    private Interleaved() {
    }

    static Map<String, List<Double>> time(Map<String, Step> steps, int warm, int calls) throws Exception {
        var times = new LinkedHashMap<String, List<Double>>();
        for (int i = 0; i < warm + calls; i++) {
            for (var step : steps.entrySet()) {
                long t = System.nanoTime();
                step.getValue().run();
                if (i >= warm) {
                    times.computeIfAbsent(step.getKey(), k -> new ArrayList<>()).add((System.nanoTime() - t) / 1e6);
                }
            }
        }
        return times;
    }

    /** The {@code p}th percentile (50: the median, the middle one of an odd count, the upper middle of an even). */
    static double percentile(List<Double> values, int p) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        return v[Math.min(v.length - 1, v.length * p / 100)];
    }
}
