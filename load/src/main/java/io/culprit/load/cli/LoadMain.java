package io.culprit.load.cli;

import picocli.CommandLine;

/**
 * Runs {@code culprit load} from the load module alone (java -cp load.jar:deps io.culprit.load.cli.LoadMain),
 * without the rest of culprit: the bench uses it, and so can a machine that only generates load.
 */
public final class LoadMain {

    private LoadMain() {
    }

    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new LoadCommand());
        // Same conventions as the culprit entry point: one-line errors, exit 2 for bad input.
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("culprit load: " + ex.getMessage());
            return 2;
        });
        cl.setExecutionExceptionHandler((ex, c, parsed) -> {
            c.getErr().println("culprit load: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()));
            return 1;
        });
        System.exit(cl.execute(args));
    }
}
