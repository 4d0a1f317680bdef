package io.culprit.agent.probe;

import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** One dependency call target (a normalized statement, a URL shape): counts and time. */
final class CallStats {

    final String kind;
    final String target;
    private final Histogram us = new Histogram(3);
    private long count;
    private long slow;
    private long errors;
    private double totalMs;

    CallStats(String kind, String target) {
        this.kind = kind;
        this.target = target;
    }

    synchronized void add(long ns, boolean isSlow, boolean failed) {
        us.recordValue(Math.max(1, ns / 1_000));
        count++;
        totalMs += ns / 1e6;
        if (isSlow) slow++;
        if (failed) errors++;
    }

    synchronized double totalMs() {
        return totalMs;
    }

    synchronized Map<String, Object> row(double requestMs, long requests) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("kind", kind);
        r.put("target", target);
        r.put("count", count);
        r.put("totalMs", totalMs);
        r.put("p99Ms", us.getValueAtPercentile(99) / 1e3);
        r.put("maxMs", us.getMaxValue() / 1e3);
        r.put("slowCount", slow);
        r.put("errors", errors);
        // Calls made outside any request (schedulers, startup) can push this above 1; it is a share of request time only when they run inside requests.
        r.put("shareOfRequestTime", requestMs > 0 ? Math.min(1.0, totalMs / requestMs) : null);
        r.put("perRequest", requests > 0 ? (double) count / requests : null);
        return r;
    }
}
