package io.culprit.agent.probe;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * One dependency call target (a normalized statement, a URL shape): counts and time. Every
 * request thread running the same statement records here, so recording takes no lock.
 */
final class CallStats {

    final String kind;
    final String target;
    private final ConcurrentHistogram us = new ConcurrentHistogram(3);
    private final LongAdder slow = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final DoubleAdder totalMs = new DoubleAdder();

    CallStats(String kind, String target) {
        this.kind = kind;
        this.target = target;
    }

    void add(long ns, boolean isSlow, boolean failed) {
        us.recordValue(Math.max(1, ns / 1_000));  // counts the call too: no adder of its own
        totalMs.add(ns / 1e6);
        if (isSlow) slow.increment();
        if (failed) errors.increment();
    }

    double totalMs() {
        return totalMs.sum();
    }

    Map<String, Object> row(double requestMs, long requests) {
        Histogram h = us.copy();
        long count = h.getTotalCount();
        double totalMs = this.totalMs.sum();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("kind", kind);
        r.put("target", target);
        r.put("count", count);
        r.put("totalMs", totalMs);
        r.put("p99Ms", h.getValueAtPercentile(99) / 1e3);
        r.put("maxMs", h.getMaxValue() / 1e3);
        r.put("slowCount", slow.sum());
        r.put("errors", errors.sum());
        // Calls made outside any request (schedulers, startup) can push this above 1; it is a share of request time only when they run inside requests.
        r.put("shareOfRequestTime", requestMs > 0 ? Math.min(1.0, totalMs / requestMs) : null);
        r.put("perRequest", requests > 0 ? (double) count / requests : null);
        return r;
    }
}
