package io.culprit.cli.report;

import io.culprit.model.CaseFile;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What {@code culprit report} and {@code culprit diff} share: they print to the command line's
 * writers (not System.out, so callers and tests can redirect them), check {@code --format}, and
 * turn a directory that is not a case file into one line and exit code 2.
 */
abstract class CaseCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public final Integer call() {
        PrintWriter stdout = spec.commandLine().getOut(), stderr = spec.commandLine().getErr();
        try {
            return run(stdout, stderr);
        } finally {
            stdout.flush();
            stderr.flush();
        }
    }

    abstract int run(PrintWriter stdout, PrintWriter stderr);

    /** "culprit report", the prefix of every error line. */
    final String name() {
        return "culprit " + spec.name();
    }

    /** False, having said which formats exist, when {@code format} is not one of {@code known}. */
    final boolean knownFormat(String format, List<String> known, PrintWriter stderr) {
        if (known.contains(format)) return true;
        String list = String.join(", ", known.subList(0, known.size() - 1)) + " or " + known.get(known.size() - 1);
        stderr.println(name() + ": unknown --format " + format + " (use " + list + ")");
        return false;
    }

    /** The case at {@code dir}, or null having said why it is not one. */
    final CaseFile open(Path dir, PrintWriter stderr) {
        try {
            return CaseFile.open(dir);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            stderr.println(name() + ": " + e.getMessage());
            return null;
        }
    }
}
