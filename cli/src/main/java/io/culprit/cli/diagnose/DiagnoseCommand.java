package io.culprit.cli.diagnose;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until its issue lands: says so and exits non-zero. */
@Command(name = "diagnose", description = "Collects evidence under load and names the root cause.")
public final class DiagnoseCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("culprit diagnose: not available yet");
        return 2;
    }
}
