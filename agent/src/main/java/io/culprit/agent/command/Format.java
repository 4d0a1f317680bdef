package io.culprit.agent.command;

import java.util.Locale;

/** Small text helpers shared by the commands' human-readable output. */
public final class Format {
    private Format() {
    }

    /** Bytes as 1K-based units, e.g. {@code 12.3M}; {@code -} for an undefined (negative) size. */
    public static String bytes(long b) {
        if (b < 0) {
            return "-";
        }
        if (b < 1024) {
            return b + "B";
        }
        String units = "KMGTPE";
        double v = b;
        int u = -1;
        while (v >= 1024 && u < units.length() - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.0f%c" : "%.1f%c", v, units.charAt(u));
    }

    /** Milliseconds as {@code 3d 4h}, {@code 12m 5s} or {@code 850ms}. */
    public static String duration(long ms) {
        if (ms < 1000) {
            return ms + "ms";
        }
        long s = ms / 1000;
        if (s < 60) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        long m = s / 60;
        if (m < 60) {
            return m + "m " + (s % 60) + "s";
        }
        long h = m / 60;
        return h < 24 ? h + "h " + (m % 60) + "m" : (h / 24) + "d " + (h % 24) + "h";
    }

    public static String percent(double p) {
        return String.format(Locale.ROOT, "%.1f%%", p);
    }

    /** Cuts {@code s} to {@code width} characters, marking the cut. */
    public static String clip(String s, int width) {
        return s.length() <= width ? s : s.substring(0, Math.max(0, width - 1)) + "…";
    }

    public static String pad(String s, int width) {
        StringBuilder sb = new StringBuilder(clip(s, width));
        while (sb.length() < width) {
            sb.append(' ');
        }
        return sb.toString();
    }

    public static String padLeft(String s, int width) {
        StringBuilder sb = new StringBuilder();
        for (int i = s.length(); i < width; i++) {
            sb.append(' ');
        }
        return sb.append(s).toString();
    }
}
