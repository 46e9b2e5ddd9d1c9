package dev.hearth;

import dev.hearth.cli.Cli;
import dev.hearth.cli.Warmup;

/** The one program: {@code hearth serve} runs the service; every other subcommand is its client. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        Warmup.start(args);
        int code = Cli.run(args, Cli.Context.system());
        if (code != 0 || args.length == 0 || !args[0].equals("serve")) {
            System.exit(code);
        }
    }
}
