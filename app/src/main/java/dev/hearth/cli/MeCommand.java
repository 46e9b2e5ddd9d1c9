package dev.hearth.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code hearth me}: who the caller is and its workspaces. */
@Command(name = "me", description = "Show who you are signed in as and your workspaces.")
final class MeCommand implements Callable<Integer> {
    @ParentCommand
    Cli cli;

    @Override
    public Integer call() {
        var me = cli.client().get("/me");
        cli.print(me, () -> {
            var p = me.path("principal");
            String who = p.path("email").isNull() ? p.path("name").asText() + " (key)" : p.path("email").asText();
            // The server's operator (see GET /nodes) says so beside its id.
            cli.out().println(who + "  " + p.path("id").asText() + (me.path("operator").asBoolean() ? "  operator" : ""));
            var table = new Table("WORKSPACE", "ID", "ROLE");
            me.path("workspaces").forEach(m -> table.row(m.path("workspace").path("name").asText(),
                    m.path("workspace").path("id").asText(), m.path("role").asText()));
            table.print(cli.out());
        });
        return 0;
    }
}
