package io.culprit.report;

import io.culprit.diagnosis.Evidence;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.report.internal.Collapsed;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Before and after, the argument seeds 2 and 3 of CASES.md have to make in a ticket: the same
 * measures side by side, which problems the change resolved, which remain, which are new, and a
 * differential CPU flame graph (both profiles' shapes overlaid, coloured by how each frame's share moved).
 */
public record CaseDiff(String before, String after, List<Metric> metrics, List<Change> resolved, List<Change> stillPresent,
                       List<Change> appeared, Report.Flame flame) {

    /** One measure; {@code lowerIsBetter} false for throughput. NaN when a case lacks it. */
    public record Metric(String name, String ref, double before, double after, boolean lowerIsBetter) {
        /** Relative change, after vs before; NaN when either is missing or before is 0. */
        public double change() {
            return Double.isFinite(before) && Double.isFinite(after) && before != 0 ? (after - before) / Math.abs(before) : Double.NaN;
        }

        public boolean improved() {
            double c = change();
            return Double.isFinite(c) && (lowerIsBetter ? c < 0 : c > 0);
        }
    }

    /** A hypothesis that was or is a problem; either side null when the case has no finding of that id. */
    public record Change(String id, String title, Finding before, Finding after) { }

    public static CaseDiff of(CaseFile before, List<Finding> fb, CaseFile after, List<Finding> fa) {
        List<Metric> metrics = new ArrayList<>();
        metric(metrics, "p50 ms (median window)", "requests#p50Ms", before, after, CaseDiff::median, true);
        metric(metrics, "p90 ms (median window)", "requests#p90Ms", before, after, CaseDiff::median, true);
        metric(metrics, "p99 ms (median window)", "requests#p99Ms", before, after, CaseDiff::median, true);
        metric(metrics, "p99 ms (worst window)", "requests#p99Ms", before, after, CaseDiff::max, true);
        metric(metrics, "rps (mean)", "requests#rps", before, after, CaseDiff::mean, false);
        metric(metrics, "errors (total)", "requests#errors", before, after, CaseDiff::sum, true);
        metric(metrics, "GC pauses (count)", "gc#pauseCount", before, after, CaseDiff::sum, true);
        metric(metrics, "GC pause sum ms", "gc#pauseSumMs", before, after, CaseDiff::sum, true);
        metric(metrics, "pool pending (max)", "pools#dbPending", before, after, CaseDiff::max, true);
        metric(metrics, "pool pending (mean)", "pools#dbPending", before, after, CaseDiff::mean, true);
        metric(metrics, "busy threads (mean)", "pools#containerBusy", before, after, CaseDiff::mean, true);
        metric(metrics, "busy threads (max)", "pools#containerBusy", before, after, CaseDiff::max, true);
        metric(metrics, "CPU machine (mean)", "cpu#machineTotal", before, after, CaseDiff::mean, true);

        Map<String, Finding> b = byId(fb), a = byId(fa);
        List<Change> resolved = new ArrayList<>(), still = new ArrayList<>(), appeared = new ArrayList<>();
        for (Finding f : fb) {
            if (!f.isProblem()) continue;
            Finding now = a.get(f.id());
            (now != null && now.isProblem() ? still : resolved).add(new Change(f.id(), f.title(), f, now));
        }
        for (Finding f : fa) {
            Finding was = b.get(f.id());
            if (f.isProblem() && (was == null || !was.isProblem())) appeared.add(new Change(f.id(), f.title(), was, f));
        }
        return new CaseDiff(name(before), name(after), metrics, resolved, still, appeared, flame(before, after).orElse(null));
    }

    private static Optional<Report.Flame> flame(CaseFile before, CaseFile after) {
        Path pb = before.profile("cpu.collapsed"), pa = after.profile("cpu.collapsed");
        if (!Files.isRegularFile(pb) || !Files.isRegularFile(pa)) return Optional.empty();
        Collapsed.Node rb = Collapsed.parse(pb), ra = Collapsed.parse(pa);
        if (rb.value() == 0 || ra.value() == 0) return Optional.empty();
        return Optional.of(new Report.Flame("cpu-diff", "profiles/cpu.collapsed", ra.value(), Collapsed.diff(rb, ra)));
    }

    private static void metric(List<Metric> out, String name, String ref, CaseFile before, CaseFile after,
                               Function<double[], Double> agg, boolean lowerIsBetter) {
        double b = value(before, ref, agg), a = value(after, ref, agg);
        if (Double.isFinite(b) || Double.isFinite(a)) out.add(new Metric(name, "series/" + ref, b, a, lowerIsBetter));
    }

    private static double value(CaseFile cf, String ref, Function<double[], Double> agg) {
        String[] p = ref.split("#");
        // Through Evidence, so a case whose latency lives only in load.json compares like the rules read it.
        Optional<double[]> col = new Evidence(cf).series(p[0]).flatMap(s -> s.column(p[1]));
        if (col.isEmpty()) return Double.NaN;
        double[] v = Arrays.stream(col.get()).filter(Double::isFinite).toArray();
        return v.length == 0 ? Double.NaN : agg.apply(v);
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    static double mean(double[] v) { return sum(v) / v.length; }

    static double sum(double[] v) { return Arrays.stream(v).sum(); }

    static double max(double[] v) { return Arrays.stream(v).max().orElse(Double.NaN); }

    private static Map<String, Finding> byId(List<Finding> fs) {
        Map<String, Finding> m = new LinkedHashMap<>();
        for (Finding f : fs) m.putIfAbsent(f.id(), f);
        return m;
    }

    private static String name(CaseFile cf) {
        return String.valueOf(cf.dir().toAbsolutePath().normalize().getFileName());
    }
}
