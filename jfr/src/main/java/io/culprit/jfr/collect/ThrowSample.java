package io.culprit.jfr.collect;

import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;

/**
 * How much of the throwing a recording's exception events show. {@code jdk.ExceptionStatistics}
 * counts every throwable JFR's tracer sees; the {@code jdk.JavaExceptionThrow} events may be a
 * sample of them (culprit's exception gate closes them above its budget, JDK 25+ throttles them),
 * so counts per key (a type and site, a missing class) are scaled by throwables ÷ events over the
 * statistics' span, and from the span to the whole observation.
 *
 * <p>Only events inside the span are scaled: the gate may have kept every throw before its first
 * tick, and counting those at the sample's rate would inflate them. Unsampled, counter and events
 * agree to within what was buffered at the span's edges; scaling starts only when the counter
 * exceeds the events by {@link #SAMPLED}, so an unsampled count stays exact.
 */
final class ThrowSample<K> {
    static final String STATISTICS = "jdk.ExceptionStatistics";
    /** Throwables over events above which the events are taken as a sample. */
    static final double SAMPLED = 1.2;

    private long firstTotal = -1, lastTotal = -1;
    private long firstNs = Long.MAX_VALUE, lastNs = Long.MIN_VALUE;
    /** Each counted event's start (epoch ns) and key, to tell those inside the statistics' span. */
    private long[] eventNs = new long[256];
    private Object[] eventKey = new Object[256];
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

    /** One exception event, counted under {@code key}. */
    void event(RecordedEvent e, K key) {
        if (events == eventNs.length) {
            eventNs = Arrays.copyOf(eventNs, events * 2);
            eventKey = Arrays.copyOf(eventKey, events * 2);
        }
        eventNs[events] = epochNs(e);
        eventKey[events++] = key;
    }

    /** Throwables in the statistics' span, -1 when fewer than two statistics events were seen. */
    long throwables() {
        return firstTotal < 0 || lastNs <= firstNs ? -1 : lastTotal - firstTotal;
    }

    private boolean inSpan(long ns) {
        return ns > firstNs && ns <= lastNs;
    }

    private long eventsInSpan() {
        long n = 0;
        for (int i = 0; i < events; i++) if (inSpan(eventNs[i])) n++;
        return n;
    }

    /** Events kept ÷ throwables counted, or 1 when the events are not a sample. */
    double share() {
        long throwables = throwables(), kept = eventsInSpan();
        return throwables <= 0 || kept == 0 || throwables < kept * SAMPLED ? 1 : (double) kept / throwables;
    }

    /**
     * Throwables per key over an observation of {@code seconds}: the events as counted, or, when
     * they are a sample, each key's events in the span scaled to the throwables and stretched from
     * the span to the observation; never fewer than the key's own events.
     */
    @SuppressWarnings("unchecked")
    Map<K, Long> counts(double seconds) {
        Map<K, Long> raw = new HashMap<>(), kept = new HashMap<>();
        for (int i = 0; i < events; i++) {
            K key = (K) eventKey[i];
            raw.merge(key, 1L, Long::sum);
            if (inSpan(eventNs[i])) kept.merge(key, 1L, Long::sum);
        }
        double share = share();
        if (share == 1) return raw;
        double spanSeconds = (lastNs - firstNs) / 1e9;
        double stretch = seconds > spanSeconds ? seconds / spanSeconds : 1;
        Map<K, Long> out = new HashMap<>();
        raw.forEach((key, n) -> out.put(key, Math.max(n, Math.round(kept.getOrDefault(key, 0L) / share * stretch))));
        return out;
    }

    private static long epochNs(RecordedEvent e) {
        Instant t = e.getStartTime();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
