package io.culprit.diagnosis;

/** Small numeric helpers shared by rules. */
public final class Stats {
    private Stats() { }

    /** Pearson r over (x, y) pairs; NaN with fewer than 3 pairs or a constant column. */
    public static double pearson(double[][] pairs) {
        int n = pairs.length;
        if (n < 3) return Double.NaN;
        double mx = 0, my = 0;
        for (double[] p : pairs) { mx += p[0]; my += p[1]; }
        mx /= n;
        my /= n;
        double sxy = 0, sxx = 0, syy = 0;
        for (double[] p : pairs) {
            double dx = p[0] - mx, dy = p[1] - my;
            sxy += dx * dy;
            sxx += dx * dx;
            syy += dy * dy;
        }
        if (sxx <= 0 || syy <= 0) return Double.NaN;
        return sxy / Math.sqrt(sxx * syy);
    }

    /** a / b, NaN when b is zero or either is not finite. */
    public static double ratio(double a, double b) {
        return Double.isFinite(a) && Double.isFinite(b) && b != 0 ? a / b : Double.NaN;
    }

    /** v, or 0 when it was not measured (NaN) or is infinite: for sums and comparisons that read "none" as zero. */
    public static double finite(double v) {
        return Double.isFinite(v) ? v : 0;
    }
}
