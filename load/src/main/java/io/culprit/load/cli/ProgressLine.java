package io.culprit.load.cli;

import io.culprit.load.LoadListener;
import io.culprit.load.Progress;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The live one-line status on stderr, rewritten in place with a carriage return. */
final class ProgressLine implements LoadListener {

    private final PrintWriter err;
    private int lastLength;

    ProgressLine(PrintWriter err) {
        this.err = err;
    }

    /** Java has no isatty for stderr; on Linux its file descriptor names the terminal device. */
    static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (Exception e) {
            return System.console() != null;
        }
    }

    @Override
    public void onProgress(Progress p) {
        long left = Math.max(0, (p.totalNanos() - p.elapsedNanos()) / 1_000_000_000L);
        String text = p.warmingUp()
                ? String.format(Locale.ROOT, "warming up ... %ds left", left)
                : String.format(Locale.ROOT, "%8.1f req/s   requests %d   errors %d   p50 %s   p99 %s   %ds left",
                        p.rps(), p.requests(), p.errors(),
                        p.requests() == 0 ? "-" : SummaryRenderer.micros(p.p50Micros()),
                        p.requests() == 0 ? "-" : SummaryRenderer.micros(p.p99Micros()), left);
        err.print("\r" + text + " ".repeat(Math.max(0, lastLength - text.length())));
        lastLength = text.length();
        err.flush();
    }

    /** Wipes the line so the summary starts clean. */
    void clear() {
        err.print("\r" + " ".repeat(lastLength) + "\r");
        err.flush();
    }
}
