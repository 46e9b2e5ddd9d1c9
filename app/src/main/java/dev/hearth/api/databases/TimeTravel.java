package dev.hearth.api.databases;

import dev.hearth.api.Required;
import java.time.Instant;

/**
 * A read-only view of a database as it was at a moment: its own cluster, held in recovery at
 * {@code at}, reached at {@code connection} until {@code expires_at}.
 */
public record TimeTravel(@Required String id, @Required String database, @Required String at,
                         @Required Instant createdAt, @Required Instant expiresAt, @Required Connection connection) {
    public TimeTravel redacted() {
        return new TimeTravel(id, database, at, createdAt, expiresAt, connection.redacted());
    }
}
