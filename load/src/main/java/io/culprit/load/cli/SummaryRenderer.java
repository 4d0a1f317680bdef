package io.culprit.load.cli;

import io.culprit.load.LoadPlan;
import io.culprit.load.LoadResult;
import io.culprit.load.RequestSpec;
import io.culprit.load.Threshold;
import io.culprit.load.WindowStats;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/** The end-of-run text: a k6-like summary, the per-window table, and the thresholds. */
final class SummaryRenderer {

    private SummaryRenderer() {
    }

    static void render(LoadResult r, List<Threshold> thresholds, PrintWriter out) {
        LoadPlan p = r.plan();
        out.println();
        for (RequestSpec s : p.requests()) {
            line(out, "request", s.toString());
        }
        String model = p.model() == LoadPlan.Model.OPEN
                ? "open, " + describeRate(p) + ", up to " + p.connections() + " connections"
                : "closed, " + p.connections() + " connections";
        line(out, "model", model + ", " + p.effectiveThreads() + " threads");
        line(out, "duration", f("%.1fs", r.seconds()) + (p.warmup().isZero() ? "" : f(" (after %.1fs warmup)", p.warmup().toNanos() / 1e9)));
        out.println();
        String target = Double.isNaN(r.targetRequests()) ? ""
                : f("   target %.0f, shortfall %.1f%%", r.targetRequests(), 100 * (r.targetRequests() - r.requests()) / r.targetRequests());
        line(out, "requests", f("%d   %.1f/s", r.requests(), r.achievedRps()) + target);
        line(out, "errors", f("%d   %.2f%%   ", r.errors(), 100 * r.errorRate()) + r.errorsByKind().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" ")));
        line(out, "status", r.statusCounts().isEmpty() ? "-" : r.statusCounts().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" ")));
        if (p.model() == LoadPlan.Model.OPEN) {
            line(out, "unsent", r.unsent() + "   (due but no connection free before the end)");
        }
        line(out, "latency", stats(r.latency()) + (p.model() == LoadPlan.Model.OPEN ? "   (from intended send)" : ""));
        line(out, "service time", stats(r.service()) + "   (from actual send)");
        if (r.perRequest().size() > 1) {
            out.println();
            out.println("  request                                       requests  errors       p50       p99       max");
            for (var rs : r.perRequest()) {
                Histogram h = rs.latency();
                String name = rs.spec().method() + " " + rs.spec().target();
                out.println(f("  %-44s %9d %7d %9s %9s %9s", name.length() > 44 ? name.substring(0, 41) + "..." : name,
                        rs.requests(), rs.errors(), pct(h, 50), pct(h, 99), h.getTotalCount() == 0 ? "-" : micros(h.getMaxValue())));
            }
        }
        out.println();
        windows(r, out);
        if (!thresholds.isEmpty()) {
            out.println();
            for (Threshold t : thresholds) {
                out.println("  " + (t.passes(r) ? "ok   " : "FAIL ") + t.expression() + "   (actual " + t.formatActual(r) + ")");
            }
        }
        out.flush();
    }

    static void windows(LoadResult r, PrintWriter out) {
        boolean open = r.plan().model() == LoadPlan.Model.OPEN;
        out.println(open
                ? "  window           rps   target   short       p50       p90       p99       max  errors"
                : "  window           rps       p50       p90       p99       max  errors");
        for (WindowStats w : r.windows()) {
            String span = f("%.0fs-%.0fs", w.startNanos() / 1e9, w.endNanos() / 1e9);
            Histogram h = w.latency();
            StringBuilder b = new StringBuilder(f("  %-12s %8.1f", span, w.achievedRps()));
            if (open) {
                b.append(f(" %8.1f %6.1f%%", w.targetRps(), 100 * w.shortfall()));
            }
            b.append(f(" %9s %9s %9s %9s %7d", pct(h, 50), pct(h, 90), pct(h, 99),
                    h.getTotalCount() == 0 ? "-" : micros(h.getMaxValue()), w.errors()));
            out.println(b);
        }
    }

    static String stats(Histogram h) {
        if (h.getTotalCount() == 0) {
            return "no responses";
        }
        return "min=" + micros(h.getMinValue()) + " avg=" + micros((long) h.getMean()) + " p50=" + pct(h, 50)
                + " p90=" + pct(h, 90) + " p95=" + pct(h, 95) + " p99=" + pct(h, 99) + " p99.9=" + pct(h, 99.9)
                + " max=" + micros(h.getMaxValue());
    }

    /** Microseconds in the unit a human reads fastest: 850us, 12.34ms, 1.04s. */
    static String micros(long us) {
        if (us < 1000) {
            return us + "us";
        }
        if (us < 1_000_000) {
            return f("%.2fms", us / 1e3);
        }
        return f("%.2fs", us / 1e6);
    }

    private static String pct(Histogram h, double p) {
        return h.getTotalCount() == 0 ? "-" : micros(h.getValueAtPercentile(p));
    }

    private static String describeRate(LoadPlan p) {
        var s = p.schedule();
        if (s.stages().size() == 1 && s.stages().get(0).targetRate() == s.startRate()) {
            return f("%.1f/s", s.startRate());
        }
        return f("ramp from %.1f/s", s.startRate()) + s.stages().stream()
                .map(st -> f(" to %.1f/s over %.1fs", st.targetRate(), st.duration().toNanos() / 1e9))
                .collect(Collectors.joining(","));
    }

    private static void line(PrintWriter out, String key, String value) {
        String dots = ".".repeat(Math.max(2, 16 - key.length()));
        out.println("  " + key + " " + dots + ": " + value);
    }

    private static String f(String fmt, Object... args) {
        return String.format(Locale.ROOT, fmt, args);
    }
}
