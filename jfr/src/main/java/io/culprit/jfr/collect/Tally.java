package io.culprit.jfr.collect;

import java.util.Map;

/** How many, their total and their largest, in ms: the counters behind a table row per key. */
final class Tally {
    long count;
    double sumMs, maxMs;

    void add(double ms, double largest) {
        count++;
        sumMs += ms;
        maxMs = Math.max(maxMs, largest);
    }

    /** Puts {@code count}, the total under {@code sumColumn}, and {@code maxMs}. */
    void into(Map<String, Object> row, String sumColumn) {
        row.put("count", count);
        row.put(sumColumn, sumMs);
        row.put("maxMs", maxMs);
    }
}
