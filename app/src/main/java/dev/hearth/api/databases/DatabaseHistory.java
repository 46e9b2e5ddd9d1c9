package dev.hearth.api.databases;

import java.time.Instant;

/**
 * The moments a database can be branched or restored to now: from its oldest base to now (null
 * earliest: no base yet); its bases, the bytes of WAL its archive holds, and the window it keeps.
 */
public record DatabaseHistory(Instant earliest, Instant latest, int bases, long archiveBytes, long windowSeconds) {
}
