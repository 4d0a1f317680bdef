package io.culprit.agent.probe;

import org.HdrHistogram.Histogram;

/**
 * The probes' latency histograms, in microseconds, sized once for the whole range a call can take.
 * An auto-resizing {@code Histogram} grows by throwing and catching an
 * ArrayIndexOutOfBoundsException inside {@code recordValue} whenever a value passes its range: in
 * the target JVM those are exceptions JFR records, which the caught-exceptions table then showed as
 * the service's own (36 in a 20 s diagnose). Two significant digits (1 %) are what the tables
 * print, and keep each histogram at ~27 KB for the range up to an hour.
 */
final class Micros {

    /** One hour: longer calls are counted as an hour. */
    static final long HIGHEST = 3_600_000_000L;

    private Micros() { }

    static Histogram histogram() {
        return new Histogram(1, HIGHEST, 2);
    }

    /** Records {@code us}, clamped to the histogram's range so that recording never throws. */
    static void record(Histogram h, long us) {
        h.recordValue(Math.max(1, Math.min(us, HIGHEST)));
    }
}
