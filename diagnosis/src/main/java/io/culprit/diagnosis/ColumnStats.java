package io.culprit.diagnosis;

import java.util.Arrays;

/**
 * Summary of one series column over its finite values (NaN windows, where nothing was measured,
 * are skipped). {@code first}/{@code last} are the means of the first and last third of the
 * windows: the "before" and "after" of a run whose load or state changed.
 */
public final class ColumnStats {
    private final double[] sorted;
    private final double sum;
    private final double firstThird;
    private final double lastThird;

    ColumnStats(double[] values) {
        double[] finite = Arrays.stream(values).filter(Double::isFinite).toArray();
        this.sum = Arrays.stream(finite).sum();
        int third = Math.max(1, finite.length / 3);
        this.firstThird = Arrays.stream(finite, 0, Math.min(third, finite.length)).average().orElse(Double.NaN);
        this.lastThird = Arrays.stream(finite, Math.max(0, finite.length - third), finite.length).average().orElse(Double.NaN);
        this.sorted = finite.clone();
        Arrays.sort(sorted);
    }

    public int count() { return sorted.length; }
    public boolean isEmpty() { return sorted.length == 0; }
    public double sum() { return sum; }
    public double mean() { return sorted.length == 0 ? Double.NaN : sum / sorted.length; }
    public double min() { return sorted.length == 0 ? Double.NaN : sorted[0]; }
    public double max() { return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1]; }
    public double median() { return quantile(0.5); }
    public double firstThird() { return firstThird; }
    public double lastThird() { return lastThird; }

    /** Nearest-rank quantile, q in 0..1. */
    public double quantile(double q) {
        if (sorted.length == 0) return Double.NaN;
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
