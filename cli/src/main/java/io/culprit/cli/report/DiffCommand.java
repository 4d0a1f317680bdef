package io.culprit.cli.report;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until its issue lands: says so and exits non-zero. */
@Command(name = "diff", description = "Compares two case files: before/after table, findings resolved or new, differential flame graph.")
public final class DiffCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("culprit diff: not available yet");
        return 2;
    }
}
