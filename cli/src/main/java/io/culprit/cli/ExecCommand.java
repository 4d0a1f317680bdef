package io.culprit.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until its issue lands: says so and exits non-zero. */
@Command(name = "exec", description = "Runs agent commands in a JVM non-interactively.")
public final class ExecCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("culprit exec: not available yet");
        return 2;
    }
}
