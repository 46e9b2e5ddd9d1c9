package dev.hearth.server.computers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.Json;
import dev.hearth.api.checkpoints.CheckpointState;
import dev.hearth.api.computers.ComputerState;
import dev.hearth.api.computers.Pending;
import dev.hearth.api.computers.SleepMode;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The table of which move each phase allows, how a computer's parts make its phase, and the wire form of states. */
@Tag("unit")
class ComputerStateTest {

    private static Set<Move> allowed(Phase s) {
        var moves = EnumSet.noneOf(Move.class);
        for (var m : Move.values()) {
            if (s.allows(m)) {
                moves.add(m);
            }
        }
        return moves;
    }

    @Test
    void aComputersPhaseSaysItsStateMoveUnderWaySleepModeAndDeletionInOneWord() {
        var now = Instant.parse("2026-11-27T00:00:00Z");
        var settings = new Computer.Settings("hearth/busybox", java.util.Map.of(), java.util.List.of(), null, false, null,
                null, null, java.util.Map.of(), Lifetime.NONE, true);
        var creating = Computer.draft("c1", "w1", "box", settings, null, new Computer.Lineage(null, null), now);
        assertEquals(Phase.CREATING, creating.phase());
        var awake = creating.withStatus(ComputerState.READY, null, null, now);
        assertEquals(Phase.AWAKE, awake.phase());
        assertEquals(Phase.MOVING, awake.withStatus(ComputerState.READY, Pending.SLEEPING, null, now).phase());
        assertEquals(Phase.ASLEEP_WARM, awake.asleep(SleepMode.WARM, now, now).phase());
        assertEquals(Phase.ASLEEP_COLD, awake.asleep(SleepMode.COLD, now, now).phase());
        assertEquals(Phase.MOVING, awake.asleep(SleepMode.COLD, now, now)
                .withStatus(ComputerState.SLEEPING, Pending.RESTORING, null, now).phase(), "a move under way comes first");
        assertEquals(Phase.DELETED, awake.asleep(SleepMode.WARM, now, now).deleted(now).phase(),
                "deletion comes before all");
        assertEquals(Phase.FAILED, awake.withStatus(ComputerState.FAILED, null, null, now).phase());
        assertTrue(Phase.ASLEEP_WARM.asleep() && Phase.ASLEEP_COLD.asleep());
        assertFalse(Phase.MOVING.asleep() || Phase.AWAKE.asleep());
    }

    @Test
    void aComputerBeingCreatedCanOnlyStartOrFail() {
        assertEquals(EnumSet.of(Move.START, Move.FAIL), allowed(Phase.CREATING));
    }

    @Test
    void aReadyComputerRunsSleepsRestartsAndIsCheckpointedButIsNotWokenOrStartedAgain() {
        assertEquals(EnumSet.of(Move.EXEC, Move.SLEEP, Move.RESTART, Move.CHECKPOINT, Move.RESTORE, Move.FAIL),
                allowed(Phase.AWAKE));
    }

    @Test
    void aSleepingComputerWakesForExecAndIsCheckpointedAsleepButNeverRestartsOrSleepsAgain() {
        for (var phase : EnumSet.of(Phase.ASLEEP_WARM, Phase.ASLEEP_COLD)) {
            var moves = allowed(phase);
            assertTrue(moves.containsAll(EnumSet.of(Move.EXEC, Move.WAKE, Move.CHECKPOINT, Move.RESTORE)));
            assertFalse(moves.contains(Move.SLEEP));
            assertFalse(moves.contains(Move.RESTART));
        }
    }

    @Test
    void aFailedComputerCanOnlyBeRestored() {
        assertEquals(EnumSet.of(Move.RESTORE, Move.FAIL), allowed(Phase.FAILED));
    }

    @Test
    void aComputerWithAMoveUnderWayOrDeletedAllowsNoOtherMoveButTheOneUnderWayGoesOn() {
        assertEquals(EnumSet.noneOf(Move.class), allowed(Phase.MOVING));
        assertEquals(EnumSet.noneOf(Move.class), allowed(Phase.DELETED));
        var now = Instant.parse("2026-11-27T00:00:00Z");
        var settings = new Computer.Settings("hearth/busybox", java.util.Map.of(), java.util.List.of(), null, false, null,
                null, null, java.util.Map.of(), Lifetime.NONE, true);
        var awake = Computer.draft("c1", "w1", "box", settings, null, new Computer.Lineage(null, null), now)
                .withStatus(ComputerState.READY, null, null, now);
        var fallingAsleep = awake.withStatus(ComputerState.READY, Pending.SLEEPING, null, now);
        assertFalse(fallingAsleep.allowsNow(Move.EXEC), "nothing new starts while a sleep is under way");
        assertTrue(fallingAsleep.allows(Move.SLEEP), "the sleep under way may go on");
        assertFalse(awake.deleted(now).allows(Move.EXEC));
        assertTrue(awake.allowsNow(Move.EXEC));
    }

    @Test
    void statesSpeakLowercaseOnTheWireAndInTheStore() throws Exception {
        assertEquals("\"sleeping\"", Json.mapper().writeValueAsString(ComputerState.SLEEPING));
        assertEquals("\"restoring\"", Json.mapper().writeValueAsString(Pending.RESTORING));
        assertEquals(ComputerState.READY, ComputerState.of("ready"));
        assertEquals("computer is failed", "computer is " + ComputerState.FAILED);
        assertEquals(null, Pending.of(null));
    }

    @Test
    void checkpointsEndReadyOrFailedAndOnlyThoseAreDeleted() {
        assertTrue(CheckpointState.CREATING.canMoveTo(CheckpointState.READY));
        assertTrue(CheckpointState.CREATING.canMoveTo(CheckpointState.FAILED));
        assertFalse(CheckpointState.CREATING.canMoveTo(CheckpointState.DELETING));
        assertTrue(CheckpointState.READY.canMoveTo(CheckpointState.DELETING));
        assertTrue(CheckpointState.FAILED.canMoveTo(CheckpointState.DELETING));
        assertFalse(CheckpointState.READY.canMoveTo(CheckpointState.FAILED));
        assertThrows(IllegalStateException.class, () -> CheckpointState.DELETING.moveTo(CheckpointState.READY));
    }
}
