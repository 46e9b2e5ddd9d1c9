package dev.hearth.server.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.Resources;
import dev.hearth.api.computers.SleepMode;
import dev.hearth.server.network.NetworkPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Which warm sleepers go cold: the warm period's end, and memory pressure oldest first, one at a time. */
@Tag("unit")
class SleepDepthTest {
    private static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");
    private final AtomicLong available = new AtomicLong(8L << 30);
    private final SleepDepth depth = new SleepDepth(new SleepSettings(Duration.ofMinutes(5), 1L << 30), available::get);

    private static Computer warm(String id, Duration asleepFor) {
        var settings = new Computer.Settings("hearth/busybox", Map.of(), List.of(),
                new Resources(1, 512, 256, 0), false, null, NetworkPolicy.DEFAULT, Launch.IMAGE, Map.of(),
                Lifetime.NONE, true);
        return Computer.draft(id, "ws", id, settings, null, new Computer.Lineage(null, null), NOW)
                .asleep(SleepMode.WARM, NOW.minus(asleepFor), NOW);
    }

    private List<String> due(Computer... live) {
        return depth.due(List.of(live), NOW).stream().map(Computer::id).toList();
    }

    @Test
    void sleepersGoColdWhenTheirWarmPeriodIsOver() {
        var young = warm("young", Duration.ofMinutes(1));
        var old = warm("old", Duration.ofMinutes(5));
        var older = warm("older", Duration.ofMinutes(9));
        assertEquals(List.of("older", "old"), due(young, old, older));
        var cold = old.asleep(SleepMode.COLD, NOW.minus(Duration.ofHours(1)), NOW);
        var awake = older.withStatus(ComputerState.READY, null, null, NOW);
        assertEquals(List.of(), due(young, cold, awake), "only warm sleepers go cold");
    }

    @Test
    void underMemoryPressureTheLongestAsleepGoesColdFirstOneAPass() {
        var a = warm("a", Duration.ofSeconds(30));
        var b = warm("b", Duration.ofSeconds(90));
        var c = warm("c", Duration.ofSeconds(60));
        assertEquals(List.of(), due(a, b, c));
        available.set(512L << 20);
        assertEquals(List.of("b"), due(a, b, c));
        var expired = warm("expired", Duration.ofMinutes(6));
        assertEquals(List.of("expired", "b"), due(a, b, c, expired));
    }
}
