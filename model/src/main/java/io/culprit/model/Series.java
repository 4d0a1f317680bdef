package io.culprit.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A time series of one evidence source (gc, heap, requests, pools, ...): shared timestamps
 * (epoch ms, one per window) and named columns of equal length. Stored as
 * {@code series/<name>.json}; column names and units are catalogued in docs/CASEFILE.md.
 */
public final class Series {
    private final String name;
    private final long intervalMs;
    private final List<Long> t;
    private final Map<String, double[]> columns;
    private final Map<String, String> units;

    @JsonCreator
    public Series(@JsonProperty("name") String name,
                  @JsonProperty("intervalMs") long intervalMs,
                  @JsonProperty("t") List<Long> t,
                  @JsonProperty("columns") Map<String, double[]> columns,
                  @JsonProperty("units") Map<String, String> units) {
        this.name = name;
        this.intervalMs = intervalMs;
        this.t = List.copyOf(t == null ? List.of() : t);
        this.columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns == null ? Map.of() : columns));
        this.units = Map.copyOf(units == null ? Map.of() : units);
        for (Map.Entry<String, double[]> c : this.columns.entrySet()) {
            if (c.getValue().length != this.t.size()) {
                throw new IllegalArgumentException("series " + name + ": column " + c.getKey()
                        + " has " + c.getValue().length + " values for " + this.t.size() + " timestamps");
            }
        }
    }

    @JsonProperty public String name() { return name; }
    @JsonProperty public long intervalMs() { return intervalMs; }
    @JsonProperty public List<Long> t() { return t; }
    @JsonProperty public Map<String, double[]> columns() { return columns; }
    @JsonProperty public Map<String, String> units() { return units; }

    public int size() { return t.size(); }

    public Optional<double[]> column(String column) {
        return Optional.ofNullable(columns.get(column));
    }

    public static Builder builder(String name, long intervalMs) {
        return new Builder(name, intervalMs);
    }

    /** Appends rows one window at a time; a column missing from a row is recorded as NaN. */
    public static final class Builder {
        private final String name;
        private final long intervalMs;
        private final List<Long> t = new ArrayList<>();
        private final Map<String, List<Double>> cols = new LinkedHashMap<>();
        private final Map<String, String> units = new LinkedHashMap<>();

        private Builder(String name, long intervalMs) {
            this.name = name;
            this.intervalMs = intervalMs;
        }

        public Builder unit(String column, String unit) {
            units.put(column, unit);
            cols.computeIfAbsent(column, k -> padded());
            return this;
        }

        public Builder row(long epochMs, Map<String, ? extends Number> values) {
            for (String c : values.keySet()) cols.computeIfAbsent(c, k -> padded());
            t.add(epochMs);
            for (Map.Entry<String, List<Double>> c : cols.entrySet()) {
                Number v = values.get(c.getKey());
                c.getValue().add(v == null ? Double.NaN : v.doubleValue());
            }
            return this;
        }

        private List<Double> padded() {
            List<Double> l = new ArrayList<>();
            for (int i = 0; i < t.size(); i++) l.add(Double.NaN);
            return l;
        }

        public Series build() {
            Map<String, double[]> out = new LinkedHashMap<>();
            cols.forEach((k, v) -> out.put(k, v.stream().mapToDouble(Double::doubleValue).toArray()));
            return new Series(name, intervalMs, t, out, units);
        }
    }
}
