package io.culprit.cli;

/** Short human durations for tables: 42s, 7m03s, 5h12m, 3d04h. */
final class Durations {
    private Durations() {
    }

    static String format(long ms) {
        if (ms < 0) return "?";
        long s = ms / 1000;
        if (s < 60) return s + "s";
        long m = s / 60;
        if (m < 60) return String.format("%dm%02ds", m, s % 60);
        long h = m / 60;
        if (h < 24) return String.format("%dh%02dm", h, m % 60);
        return String.format("%dd%02dh", h / 24, h % 24);
    }
}
