package io.culprit.report.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import one.convert.Arguments;
import one.convert.JfrToFlame;
import one.jfr.JfrReader;

/**
 * Collapsed stacks of one kind (cpu, wall, alloc, lock) from a JFR recording, JDK's or
 * async-profiler's, through async-profiler's own converter: the same stacks its flame graphs
 * show, so the page and {@code culprit analyze --flame} agree.
 */
public final class JfrProfiles {
    private JfrProfiles() { }

    /** The tree, or an empty root when the recording has no events of that kind. */
    public static Collapsed.Node read(Path jfr, String kind) {
        return read(jfr, kind, 0, 0);
    }

    /**
     * Only the events between {@code fromMs} and {@code toMs} (epoch ms; 0 for open): diagnose
     * starts its recording before the warm-up, and the flame graphs, like the tables, show the
     * measured window.
     */
    public static Collapsed.Node read(Path jfr, String kind, long fromMs, long toMs) {
        // cpu is the converter's default (execution samples); its --cpu flag means something narrower.
        Arguments args = kind.equals("cpu") ? new Arguments("-o", "collapsed") : new Arguments("--" + kind, "-o", "collapsed");
        // The converter takes values from 1.5e12 on as epoch ms (smaller ones as relative to the recording).
        if (fromMs > 0 && toMs > fromMs) {
            args.from = fromMs;
            args.to = toMs;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JfrReader reader = new JfrReader(jfr.toString())) {
            JfrToFlame converter = new JfrToFlame(reader, args);
            converter.convert();
            converter.dump(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + jfr + ": " + e.getMessage(), e);
        }
        return Collapsed.parse(out.toString(StandardCharsets.UTF_8), jfr + " (" + kind + ")");
    }
}
