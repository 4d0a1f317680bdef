package io.culprit.jfr.collect;

import io.culprit.model.Series;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per-window accumulation of one series: each column sums, keeps the max, or keeps the last
 * value of its window. Windows with no event are 0 for sums and NaN (unknown) for gauges.
 */
public final class Windows {
    public enum Mode { SUM, MAX, LAST }

    private final String name;
    private final long intervalMs;
    private final Map<String, Mode> modes = new LinkedHashMap<>();
    private final Map<String, String> units = new LinkedHashMap<>();
    private final TreeMap<Long, Map<String, Double>> windows = new TreeMap<>();

    public Windows(String name, long intervalMs) {
        this.name = name;
        this.intervalMs = intervalMs;
    }

    public Windows column(String column, Mode mode, String unit) {
        modes.put(column, mode);
        units.put(column, unit);
        return this;
    }

    public void add(long epochMs, String column, double value) {
        Mode mode = modes.get(column);
        if (mode == null) throw new IllegalArgumentException("series " + name + " has no column " + column);
        Map<String, Double> w = windows.computeIfAbsent(epochMs / intervalMs, k -> new LinkedHashMap<>());
        Double old = w.get(column);
        double v;
        if (old == null || mode == Mode.LAST) v = value;
        else v = mode == Mode.SUM ? old + value : Math.max(old, value);
        w.put(column, v);
    }

    public boolean isEmpty() {
        return windows.isEmpty();
    }

    /** One row per window from {@code startMs} to {@code endMs} (exclusive), gaps included. */
    public Series build(long startMs, long endMs) {
        Series.Builder b = Series.builder(name, intervalMs);
        units.forEach(b::unit);
        long first = startMs / intervalMs;
        long last = Math.max(first, (endMs - 1) / intervalMs);
        for (long i = first; i <= last; i++) {
            Map<String, Double> w = windows.getOrDefault(i, Map.of());
            Map<String, Double> row = new LinkedHashMap<>();
            modes.forEach((c, m) -> row.put(c, w.getOrDefault(c, m == Mode.SUM ? 0.0 : Double.NaN)));
            b.row(i * intervalMs, row);
        }
        return b.build();
    }
}
