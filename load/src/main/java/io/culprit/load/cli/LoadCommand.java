package io.culprit.load.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until its issue lands: says so and exits non-zero. */
@Command(name = "load", description = "Drives HTTP load with honest percentiles.")
public final class LoadCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("culprit load: not available yet");
        return 2;
    }
}
