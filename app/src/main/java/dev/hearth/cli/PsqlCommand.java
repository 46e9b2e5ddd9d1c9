package dev.hearth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code hearth psql NAME [-- psql args]}: runs psql on a database, which wakes it, or with
 * {@code --at} on a time travel to a moment of it (ended when psql exits). The password goes
 * through PGPASSWORD (not the command line, where other users could read it), and the server's
 * certificate is checked against the database's CA (sslmode=verify-full).
 */
@Command(name = "psql", description = "Run psql on a database (waking it); exits with psql's exit code.")
final class PsqlCommand implements Callable<Integer> {
    @ParentCommand
    Cli cli;

    @Mixin
    WorkspaceOption workspace;

    @Parameters(index = "0", paramLabel = "DATABASE", description = "the database's name or id")
    String database;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "more psql arguments (after --), e.g. -c 'select 1'")
    List<String> args;

    @Option(names = "--pooler", description = "connect through the pooler (transaction pooling)")
    boolean pooler;

    @Option(names = "--at", paramLabel = "MOMENT", description = "read the database as it was at a moment (a time or an LSN), "
            + "read-only, through a time travel opened for this psql and ended when it exits; the database is not woken")
    String at;

    @Override
    public Integer call() throws IOException, InterruptedException {
        String path = "/databases/" + database;
        String query = "?workspace=" + workspace.required();
        if (at == null) {
            return psql(cli.client().get(path + "/connection" + query).path("connection"));
        }
        if (pooler) {
            throw new IllegalArgumentException("--at and --pooler do not go together: a time travel has no pooler");
        }
        var trip = cli.client().create(path + "/time_travels" + query, Map.of("at", at)).path("time_travel");
        try {
            return psql(trip.path("connection"));
        } finally {
            cli.client().delete(path + "/time_travels/" + trip.path("id").asText() + query);
        }
    }

    private int psql(JsonNode c) throws IOException, InterruptedException {
        Path ca = Files.createTempFile("hearth-ca", ".crt");
        try {
            Files.writeString(ca, c.path("server_ca").asText());
            String conninfo = "host=" + c.path("host").asText()
                    + " port=" + (pooler ? c.path("pooler_port").asInt() : c.path("port").asInt())
                    + " dbname=" + (pooler ? poolerDatabase(c.path("pooler_uri").asText()) : c.path("database").asText())
                    + " user=" + c.path("user").asText() + " sslmode=verify-full sslrootcert=" + ca;
            var command = new ArrayList<>(List.of(cli.context.env().getOrDefault("HEARTH_PSQL", "psql"), conninfo));
            if (args != null) {
                command.addAll(args);
            }
            var builder = new ProcessBuilder(command).inheritIO();
            builder.environment().put("PGPASSWORD", c.path("password").asText());
            return builder.start().waitFor();
        } finally {
            Files.deleteIfExists(ca);
        }
    }

    private static String poolerDatabase(String uri) {
        return uri.substring(uri.lastIndexOf('/') + 1, uri.indexOf('?'));
    }
}
