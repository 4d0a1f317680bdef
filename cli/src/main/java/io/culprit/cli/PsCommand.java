package io.culprit.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until its issue lands: says so and exits non-zero. */
@Command(name = "ps", description = "Lists local JVMs: pid, main class or jar, JDK version, uptime.")
public final class PsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("culprit ps: not available yet");
        return 2;
    }
}
