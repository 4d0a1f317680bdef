package io.culprit.diagnosis;

import java.util.Locale;

/** Number formatting for summaries: stable (Locale.ROOT), short, with units. */
public final class Fmt {
    private Fmt() { }

    /** 4.32 → "4.3 ms", 1040 → "1,040 ms", 5000 → "5 s", 12500 → "12.5 s", 1230000 → "1,230 s". */
    public static String ms(double v) {
        if (!Double.isFinite(v)) return "?";
        if (v >= 100_000) return String.format(Locale.ROOT, "%,.0f s", v / 1000);
        if (v >= 10_000 || (v >= 1000 && v % 1000 == 0)) return String.format(Locale.ROOT, "%.1f s", v / 1000).replace(".0 s", " s");
        if (v >= 100) return String.format(Locale.ROOT, "%,.0f ms", v);
        return String.format(Locale.ROOT, "%.1f ms", v).replace(".0 ms", " ms");
    }

    /** 0.213 → "21 %", 0.021 → "2.1 %". */
    public static String pct(double share) {
        if (!Double.isFinite(share)) return "?";
        double p = Math.round(share * 1000) / 10.0; // 0.0999… must print as 10 %, not 10.0 %
        return p >= 10 || p == 0 ? String.format(Locale.ROOT, "%.0f %%", p) : String.format(Locale.ROOT, "%.1f %%", p);
    }

    /** 944 → "944", 12345.6 → "12,346", 4.32 → "4.3", 8.0 → "8". */
    public static String num(double v) {
        if (!Double.isFinite(v)) return "?";
        if (Math.abs(v) >= 100 || v == Math.rint(v)) return String.format(Locale.ROOT, "%,.0f", v);
        if (Math.abs(v) >= 0.1) return String.format(Locale.ROOT, "%.1f", v);
        return String.format(Locale.ROOT, "%.2g", v);
    }

    /** Bytes in KiB, as {@link #num} prints them: 43,520 → "42.5 KB", 512 → "0.5 KB". */
    public static String kb(double bytes) {
        return num(bytes / 1024) + " KB";
    }

    /** 4.06 → "4.1×", 345.4 → "345×". */
    public static String times(double v) {
        if (!Double.isFinite(v)) return "?";
        return v >= 10 ? String.format(Locale.ROOT, "%.0f×", v) : String.format(Locale.ROOT, "%.1f×", v);
    }
}
