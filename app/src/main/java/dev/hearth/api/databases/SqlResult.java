package dev.hearth.api.databases;

import dev.hearth.api.Required;
import dev.hearth.api.WireSchema;
import dev.hearth.api.WireSchemas;
import java.util.List;

/** What the statement did: its rows (as text, null for NULL) up to the cap, or the rows it changed. */
public record SqlResult(@Required String command, @Required List<Column> columns,
                        @Required @WireSchema(WireSchemas.SQL_ROWS) List<List<String>> rows,
                        long rowCount, boolean truncated, boolean readOnly, long durationMillis) {
}
