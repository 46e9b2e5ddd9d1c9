package dev.hearth.support;

import dev.hearth.server.operations.OperationKind;
import java.util.List;

/** Operation kinds for tests: sleep in steps, reporting progress; fail when asked. */
public final class TestKinds {
    private TestKinds() {
    }

    public static List<OperationKind> all() {
        return List.of(new Sleep("test.sleep", false), new Sleep("test.resumable", true));
    }

    private record Sleep(String name, boolean resumable) implements OperationKind {
        @Override
        public void run(Work work) throws Exception {
            long millis = work.input().path("millis").asLong(300);
            int steps = (int) Math.max(1, millis / 50);
            for (int i = 1; i <= steps; i++) {
                Thread.sleep(50);
                if (i % 2 == 0 || i == steps) {
                    work.progress("step " + i + " of " + steps);
                }
            }
            if (work.input().path("fail").asBoolean()) {
                throw new Failure("test_failure", "asked to fail");
            }
        }
    }
}
