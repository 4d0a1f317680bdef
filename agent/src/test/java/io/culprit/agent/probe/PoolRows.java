package io.culprit.agent.probe;

import java.util.List;
import java.util.Map;

/** Reads of the pools the probes found, shared by the pool tests: the live view's rows and the series' maxima. */
final class PoolRows {

    private PoolRows() { }

    /** The {@code pools} view's row whose name starts with {@code label} and a space; empty if none. */
    static Map<String, Object> row(Probes p, String label) {
        List<Map<String, Object>> rows = p.pools.describe();
        return rows.stream().filter(r -> String.valueOf(r.get("pool")).startsWith(label + " ")).findFirst().orElse(Map.of());
    }

    /** A row's number, -1 when absent. */
    static double number(Map<String, Object> row, String key) {
        Object v = row.get(key);
        return v instanceof Number ? ((Number) v).doubleValue() : -1;
    }

    /** The largest value series {@code pools}' {@code column} has held so far. */
    static double max(Probes p, String column) {
        double m = Double.NEGATIVE_INFINITY;
        for (double v : p.windows.series("pools").column(column).orElseThrow()) if (v > m) m = v;
        return m;
    }
}
