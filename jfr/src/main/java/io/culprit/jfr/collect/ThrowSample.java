package io.culprit.jfr.collect;

import java.time.Instant;
import java.util.Arrays;
import jdk.jfr.consumer.RecordedEvent;

/**
 * How much of the throwing a recording's exception events show. {@code jdk.ExceptionStatistics}
 * counts every throwable JFR's tracer sees; the {@code jdk.JavaExceptionThrow} events may be a
 * sample of them (culprit's exception gate closes them above its budget, JDK 25+ throttles them),
 * so counts per type and site are scaled by throwables ÷ events over the statistics' span.
 *
 * <p>Unsampled, the two agree to within events buffered at the span's edges; scaling starts only
 * when the counter exceeds the events by {@link #SAMPLED}, so an unsampled count stays exact.
 */
final class ThrowSample {
    static final String STATISTICS = "jdk.ExceptionStatistics";
    /** Throwables over events above which the events are taken as a sample. */
    static final double SAMPLED = 1.2;

    private long firstTotal = -1, lastTotal = -1;
    private long firstNs = Long.MAX_VALUE, lastNs = Long.MIN_VALUE;
    /** Start times of the exception events (epoch ns), to count those inside the statistics' span. */
    private long[] eventNs = new long[256];
    private int events;

    /** True when {@code e} was the statistics event (and is consumed). */
    boolean statistics(RecordedEvent e) {
        if (!e.getEventType().getName().equals(STATISTICS)) return false;
        long total = e.getLong("throwables");
        long ns = epochNs(e);
        // A recording's chunks need not come in time order: keep the span's true ends.
        if (ns < firstNs) {
            firstNs = ns;
            firstTotal = total;
        }
        if (ns > lastNs) {
            lastNs = ns;
            lastTotal = total;
        }
        return true;
    }

    /** One exception event counted by the collector. */
    void event(RecordedEvent e) {
        if (events == eventNs.length) eventNs = Arrays.copyOf(eventNs, events * 2);
        eventNs[events++] = epochNs(e);
    }

    /** Throwables in the statistics' span, -1 when fewer than two statistics events were seen. */
    long throwables() {
        return firstTotal < 0 || lastNs <= firstNs ? -1 : lastTotal - firstTotal;
    }

    /** What one event stands for: 1 unless the events are a sample of the throwables counted. */
    double scale() {
        long throwables = throwables();
        if (throwables <= 0) return 1;
        long inSpan = 0;
        for (int i = 0; i < events; i++) if (eventNs[i] > firstNs && eventNs[i] <= lastNs) inSpan++;
        if (inSpan == 0 || throwables < inSpan * SAMPLED) return 1;
        return (double) throwables / inSpan;
    }

    /** {@code count} events as throwables. */
    static long scaled(long count, double scale) {
        return scale == 1 ? count : Math.round(count * scale);
    }

    private static long epochNs(RecordedEvent e) {
        Instant t = e.getStartTime();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
