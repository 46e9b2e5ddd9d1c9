package dev.hearth.server.databases;

import static dev.hearth.api.databases.DatabaseState.READY;
import static dev.hearth.api.databases.DatabaseState.SLEEPING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.hearth.api.Json;
import dev.hearth.api.databases.DatabaseState.Move;
import dev.hearth.api.databases.DatabaseState;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The table of database moves, and the text the states are stored and shown as. */
@Tag("unit")
class DatabaseStateTest {
    @Test
    void wakingStartsASleepingClusterOnly() {
        assertEquals(READY, SLEEPING.after(Move.WAKE));
        assertFalse(READY.allows(Move.WAKE));
    }

    @Test
    void sleepAndCrashStopAReadyClusterOnly() {
        assertEquals(SLEEPING, READY.after(Move.SLEEP));
        assertEquals(SLEEPING, READY.after(Move.CRASH));
        assertFalse(SLEEPING.allows(Move.SLEEP));
        assertFalse(SLEEPING.allows(Move.CRASH));
    }

    @Test
    void resetAndCheckpointWorkInEitherStateAndKeepIt() {
        for (var state : DatabaseState.values()) {
            assertEquals(state, state.after(Move.RESET));
            assertEquals(state, state.after(Move.CHECKPOINT));
        }
    }

    @Test
    void deleteNeedsTheClusterStopped() {
        assertEquals(SLEEPING, SLEEPING.after(Move.DELETE));
        var e = assertThrows(IllegalStateException.class, () -> READY.after(Move.DELETE));
        assertEquals("a ready database cannot delete", e.getMessage());
    }

    @Test
    void storedAndShownAsTodaysLowercaseText() throws Exception {
        for (var state : DatabaseState.values()) {
            assertEquals(state, DatabaseState.of(state.wire()));
            assertEquals(state.wire(), state.toString());
        }
        assertEquals("ready", READY.wire());
        assertEquals("\"sleeping\"", Json.mapper().writeValueAsString(SLEEPING));
    }
}
