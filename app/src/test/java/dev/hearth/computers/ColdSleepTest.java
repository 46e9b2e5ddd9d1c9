package dev.hearth.computers;

import dev.hearth.server.Config;
import dev.hearth.server.computers.SleepSettings;
import dev.hearth.support.HearthServerTest;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * {@link SleepTest} on a server that keeps no warm sleepers ({@code --warm-sleep-seconds 0}): every
 * sleep is a checkpoint to disk and every wake a restore.
 */
@HearthServerTest(config = "coldAtOnce", computers = true)
class ColdSleepTest extends SleepTest {
    static UnaryOperator<Config> coldAtOnce() {
        return c -> c.withSleep(new SleepSettings(Duration.ZERO, 0));
    }
}
