package dev.hearth.server.databases;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.api.Validate;
import dev.hearth.api.databases.Column;
import dev.hearth.api.databases.Connection;
import dev.hearth.api.databases.SqlQuery;
import dev.hearth.api.databases.SqlResult;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.postgresql.Driver;
import org.postgresql.core.Parser;

/**
 * The console's SQL editor: one statement run as the database's owner, over the same TLS port and
 * password a client uses (so a sleeping database wakes as for any client), with a row cap and a
 * time limit. A viewer's runs in a read-only transaction that is rolled back; one statement only,
 * so nothing after it can leave that transaction.
 */
final class SqlConsole {
    static final int MAX_ROWS = 10_000;
    static final int MAX_SECONDS = 60;
    private static final Driver DRIVER = new Driver();

    private SqlConsole() {
    }

    static SqlResult run(Connection to, SqlQuery query, boolean readOnly) {
        String sql = Validate.required("sql", query.sql()).strip();
        int maxRows = Validate.range("max_rows", query.maxRows(), 1, MAX_ROWS, 1000);
        int seconds = Validate.range("timeout_seconds", query.timeoutSeconds(), 1, MAX_SECONDS, 10);
        requireOneStatement(sql);
        long started = System.nanoTime();
        try (var session = open(to, seconds, readOnly)) {
            session.setAutoCommit(false);
            session.setReadOnly(readOnly); // BEGIN READ ONLY
            try (var statement = session.createStatement()) {
                statement.setMaxRows(maxRows + 1);
                boolean rows = statement.execute(sql);
                var result = rows ? rows(statement.getResultSet(), maxRows) : null;
                long changed = rows ? result.size() : Math.max(statement.getUpdateCount(), 0);
                if (readOnly) {
                    session.rollback();
                } else {
                    session.commit();
                }
                long millis = (System.nanoTime() - started) / 1_000_000;
                return rows ? new SqlResult("SELECT", columns(statement.getResultSet()), result.subList(0,
                        Math.min(result.size(), maxRows)), Math.min(result.size(), maxRows), result.size() > maxRows,
                        readOnly, millis) : new SqlResult(command(sql), List.of(), List.of(), changed, false, readOnly, millis);
            }
        } catch (SQLException e) {
            if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the database did not take the connection: "
                        + e.getMessage());
            }
            throw ApiException.invalidField("sql", e.getMessage() + (e.getSQLState() == null ? ""
                    : " (SQLSTATE " + e.getSQLState() + ")"));
        }
    }

    private static java.sql.Connection open(Connection to, int seconds, boolean readOnly) throws SQLException {
        var properties = new Properties();
        properties.setProperty("user", to.user());
        properties.setProperty("password", to.password());
        properties.setProperty("sslmode", "require");
        properties.setProperty("connectTimeout", "60"); // a sleeping database wakes first
        properties.setProperty("ApplicationName", "hearth-console");
        properties.setProperty("options", "-c statement_timeout=" + seconds * 1000
                + (readOnly ? " -c default_transaction_read_only=on" : ""));
        return DRIVER.connect("jdbc:postgresql://" + to.host() + ":" + to.port() + "/" + to.database(), properties);
    }

    private static void requireOneStatement(String sql) {
        try {
            var statements = Parser.parseJdbcSql(sql, true, false, true, false, false).stream()
                    .filter(q -> !q.nativeSql.isBlank()).count();
            if (statements != 1) {
                throw ApiException.invalidField("sql", "one statement at a time (got " + statements + ")");
            }
        } catch (SQLException e) {
            throw ApiException.invalidField("sql", e.getMessage());
        }
    }

    private static List<List<String>> rows(ResultSet set, int maxRows) throws SQLException {
        var rows = new ArrayList<List<String>>();
        int width = set.getMetaData().getColumnCount();
        while (rows.size() <= maxRows && set.next()) {
            var row = new ArrayList<String>(width);
            for (int i = 1; i <= width; i++) {
                row.add(set.getString(i));
            }
            rows.add(row);
        }
        return rows;
    }

    private static List<Column> columns(ResultSet set) throws SQLException {
        var meta = set.getMetaData();
        var columns = new ArrayList<Column>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            columns.add(new Column(meta.getColumnLabel(i), meta.getColumnTypeName(i)));
        }
        return columns;
    }

    /** The statement's first word, as psql reports a command (INSERT, CREATE, ...). */
    private static String command(String sql) {
        String first = sql.split("\\s+", 2)[0];
        return first.replaceAll("[^A-Za-z]", "").toUpperCase(java.util.Locale.ROOT);
    }
}
