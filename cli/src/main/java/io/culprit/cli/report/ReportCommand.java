package io.culprit.cli.report;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until its issue lands: says so and exits non-zero. */
@Command(name = "report", description = "Renders a case file as one self-contained HTML page (or Markdown, JSON).")
public final class ReportCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("culprit report: not available yet");
        return 2;
    }
}
