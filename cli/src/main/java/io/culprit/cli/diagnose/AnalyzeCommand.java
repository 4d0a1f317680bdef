package io.culprit.cli.diagnose;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until its issue lands: says so and exits non-zero. */
@Command(name = "analyze", description = "Reads a JFR recording into the same evidence and rules as diagnose.")
public final class AnalyzeCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("culprit analyze: not available yet");
        return 2;
    }
}
