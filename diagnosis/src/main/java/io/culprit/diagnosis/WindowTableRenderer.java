package io.culprit.diagnosis;

import io.culprit.model.Finding;
import io.culprit.model.Series;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The per-window table behind a verdict: throughput and latency next to the series the causal
 * chain is about (GC pauses next to pool waits next to P99), one row per window of the
 * {@code requests} series, merged into at most {@link #MAX_ROWS} rows so it stays readable.
 */
public final class WindowTableRenderer {
    static final int MAX_ROWS = 15;
    private static final int MAX_COLUMNS = 8;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);
    /** Which series columns each hypothesis is judged on; the chain picks them in its order. */
    private static final Map<String, List<String>> COLUMNS = Map.of(
            "gc-pressure", List.of("gc#pauseSumMs", "gc#pauseCount", "heap#committedMb"),
            "pool-starvation", List.of("pools#dbPending", "pools#dbAcquireMsMax"),
            "pool-size", List.of("pools#dbActive", "pools#dbUsageMsMean"),
            "cpu-saturation", List.of("cpu#machineTotal"),
            "thread-oversubscription", List.of("pools#containerBusy", "threads#runnable"),
            "lock-contention", List.of("threads#blocked"),
            "slow-calls", List.of("pools#dbUsageMsMean"),
            "tail-latency", List.of("requests#maxMs"));

    /** Short headers so eight columns fit in 100. */
    private static final Map<String, String> LABELS = Map.ofEntries(
            Map.entry("rps", "rps"), Map.entry("p50Ms", "p50 ms"), Map.entry("p99Ms", "p99 ms"), Map.entry("maxMs", "max ms"),
            Map.entry("pauseSumMs", "gc ms"), Map.entry("pauseCount", "gc count"), Map.entry("committedMb", "heap MB"),
            Map.entry("dbPending", "pending"), Map.entry("dbAcquireMsMax", "acquire ms"),
            Map.entry("dbActive", "active"), Map.entry("dbUsageMsMean", "usage ms"), Map.entry("machineTotal", "cpu"),
            Map.entry("containerBusy", "busy thr"), Map.entry("runnable", "runnable"), Map.entry("blocked", "blocked"));

    private WindowTableRenderer() { }

    /** The table, or empty when the case has no {@code requests} series. */
    public static Optional<String> render(Evidence ev, List<Finding> chain) {
        Optional<Series> req = ev.series("requests");
        if (req.isEmpty() || req.get().size() == 0) return Optional.empty();
        Map<String, double[]> cols = new LinkedHashMap<>();
        for (String c : List.of("requests#rps", "requests#p50Ms", "requests#p99Ms")) add(ev, req.get(), c, cols);
        for (Finding f : chain) {
            for (String c : COLUMNS.getOrDefault(f.id(), List.of())) if (cols.size() < MAX_COLUMNS) add(ev, req.get(), c, cols);
        }
        int n = req.get().size();
        int per = (n + MAX_ROWS - 1) / MAX_ROWS;
        StringBuilder out = new StringBuilder("Per window (" + Fmt.ms(req.get().intervalMs() * (double) per) + ", UTC)\n");
        out.append(String.format(Locale.ROOT, "%-9s", "start"));
        for (String c : cols.keySet()) {
            String name = c.substring(c.indexOf('#') + 1);
            out.append(String.format(Locale.ROOT, "%11s", LABELS.getOrDefault(name, name)));
        }
        out.append('\n');
        for (int start = 0; start < n; start += per) {
            out.append(TIME.format(Instant.ofEpochMilli(req.get().t().get(start)))).append(' ');
            for (Map.Entry<String, double[]> c : cols.entrySet()) {
                out.append(String.format(Locale.ROOT, "%11s", cell(c.getValue(), start, Math.min(n, start + per), peak(c.getKey()))));
            }
            out.append('\n');
        }
        return Optional.of(out.toString());
    }

    // Each column resampled onto the requests windows, so a 1 s GC series lines up with 15 s load windows.
    private static void add(Evidence ev, Series req, String ref, Map<String, double[]> cols) {
        String[] p = ref.split("#");
        if (cols.containsKey(ref) || !ev.has(p[0], p[1])) return;
        Series s = ev.series(p[0]).orElseThrow();
        double[] src = s.column(p[1]).orElseThrow();
        double[] out = new double[req.size()];
        for (int i = 0; i < req.size(); i++) {
            long from = req.t().get(i), to = from + req.intervalMs();
            double sum = 0;
            int k = 0;
            for (int j = 0; j < s.size(); j++) {
                long t = s.t().get(j);
                if (t >= from && t < to && Double.isFinite(src[j])) { sum += src[j]; k++; }
            }
            out[i] = k == 0 ? Double.NaN : sum / k;
        }
        cols.put(ref, out);
    }

    // Tails and queues merge by their worst window, rates and levels by their mean.
    private static boolean peak(String ref) {
        return ref.endsWith("p99Ms") || ref.endsWith("maxMs") || ref.endsWith("Max") || ref.endsWith("Pending");
    }

    private static String cell(double[] v, int from, int to, boolean peak) {
        double sum = 0, max = Double.NEGATIVE_INFINITY;
        int k = 0;
        for (int i = from; i < to; i++) if (Double.isFinite(v[i])) { sum += v[i]; max = Math.max(max, v[i]); k++; }
        if (k == 0) return "-";
        double m = peak ? max : sum / k;
        return m >= 100 ? String.format(Locale.ROOT, "%,.0f", m) : String.format(Locale.ROOT, "%.2f", m).replaceAll("\\.?0+$", "");
    }
}
