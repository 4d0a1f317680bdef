package io.culprit.cli;

import io.culprit.cli.agent.CulpritException;
import io.culprit.cli.diagnose.AnalyzeCommand;
import io.culprit.cli.diagnose.DiagnoseCommand;
import io.culprit.cli.lab.LabCommand;
import io.culprit.cli.report.DiffCommand;
import io.culprit.cli.report.ReportCommand;
import io.culprit.load.cli.LoadCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the culprit command line: one subcommand per class, wired here and nowhere else. */
@Command(name = "culprit",
        mixinStandardHelpOptions = true,
        version = "culprit 0.1.0-SNAPSHOT",
        description = "Finds out why a JVM service is slow, and names the root cause.",
        subcommands = {
                PsCommand.class,
                AttachCommand.class,
                ExecCommand.class,
                LoadCommand.class,
                LabCommand.class,
                DiagnoseCommand.class,
                AnalyzeCommand.class,
                ReportCommand.class,
                DiffCommand.class,
                DemoCommand.class,
                CommandLine.HelpCommand.class
        })
public final class Culprit implements Runnable {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line; tests drive it in-process. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Culprit());
        // "--body @payload.json" is culprit's own file reference (as curl's -d @file); picocli
        // would otherwise replace the word by the file's contents, split into arguments.
        cl.setExpandAtFiles(false);
        // Bad input is a one-line error and a non-zero exit, never a stack trace.
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("culprit: " + ex.getMessage());
            return 2;
        });
        cl.setExecutionExceptionHandler((ex, c, parsed) -> {
            c.getErr().println("culprit: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()));
            return ex instanceof CulpritException ? ((CulpritException) ex).exitCode() : 1;
        });
        return cl;
    }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }
}
