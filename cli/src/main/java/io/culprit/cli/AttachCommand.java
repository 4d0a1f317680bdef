package io.culprit.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until its issue lands: says so and exits non-zero. */
@Command(name = "attach", description = "Attaches to a running JVM and opens an interactive console.")
public final class AttachCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("culprit attach: not available yet");
        return 2;
    }
}
