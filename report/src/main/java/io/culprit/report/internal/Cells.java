package io.culprit.report.internal;

import java.util.List;
import java.util.Locale;

/** Numbers and cells as a reader wants them: no 17-digit doubles, stacks one frame per line. */
public final class Cells {
    private Cells() { }

    public static String text(Object v) {
        if (v == null) return "";
        if (v instanceof Number n) return num(n.doubleValue());
        if (v instanceof List<?> l) {
            StringBuilder b = new StringBuilder();
            for (Object o : l) b.append(b.length() == 0 ? "" : "\n").append(o);
            return b.toString();
        }
        return String.valueOf(v);
    }

    /** Integers without decimals, large numbers grouped, small ones to three significant places. */
    public static String num(double d) {
        if (Double.isNaN(d)) return "-";
        if (Double.isInfinite(d)) return d > 0 ? "∞" : "-∞";
        if (d == Math.rint(d) && Math.abs(d) < 1e15) return String.format(Locale.ROOT, "%,d", (long) d);
        double a = Math.abs(d);
        if (a >= 100) return String.format(Locale.ROOT, "%,.0f", d);
        if (a >= 10) return String.format(Locale.ROOT, "%.1f", d);
        if (a >= 1) return String.format(Locale.ROOT, "%.2f", d);
        return String.format(Locale.ROOT, "%.3g", d);
    }
}
