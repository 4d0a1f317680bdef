package io.culprit.cli.lab;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until its issue lands: says so and exits non-zero. */
@Command(name = "lab", description = "Starts a lab service with a seeded performance fault.")
public final class LabCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("culprit lab: not available yet");
        return 2;
    }
}
