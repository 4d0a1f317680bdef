package io.culprit.report;

import io.culprit.diagnosis.Evidence;
import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import io.culprit.model.Finding;
import io.culprit.model.Series;
import io.culprit.model.Table;
import io.culprit.model.Verdict;
import io.culprit.report.internal.ChartPlan;
import io.culprit.report.internal.Collapsed;
import io.culprit.report.internal.JfrProfiles;
import io.culprit.report.internal.Cells;
import io.culprit.report.internal.TableOrder;
import io.culprit.report.internal.Verdicts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/** Reads a case file (and its ranked findings) into a {@link Report}. */
public final class ReportBuilder {
    /** Rows shown per evidence table, unless a finding refers to a lower-ranked row. */
    static final int TABLE_ROWS = 20;
    static final List<String> FLAME_KINDS = List.of("cpu", "wall", "alloc", "lock");
    private static final List<String> WINDOW_COLUMNS = List.of("rps", "targetRps", "p50Ms", "p90Ms", "p99Ms", "maxMs", "errors");

    private ReportBuilder() { }

    /** The case's own {@code findings.json} (empty when the rules have not run over it). */
    public static Report build(CaseFile cf) {
        return build(cf, cf.findings());
    }

    public static Report build(CaseFile cf, List<Finding> findings) {
        CaseInfo info = cf.info();
        Map<String, Series> series = new LinkedHashMap<>();
        for (String n : cf.seriesNames()) cf.series(n).ifPresent(s -> series.put(n, s));
        // A load-driven case may keep its per-window latency only in load.json: read it as the rules do.
        if (!series.containsKey("requests")) new Evidence(cf).series("requests").ifPresent(s -> series.put("requests", s));
        return new Report(String.valueOf(cf.dir().toAbsolutePath().normalize().getFileName()), info,
                verdict(findings), findings, windows(series.get("requests")), charts(info, series),
                flames(cf), tables(cf, findings));
    }

    private static Report.Verdict verdict(List<Finding> findings) {
        Optional<Finding> top = findings.stream().filter(f -> f.verdict() == Verdict.CONFIRMED).findFirst();
        return top.map(t -> new Report.Verdict(t, Verdicts.chain(t, findings), Verdicts.isSymptom(t.id())))
                .orElse(new Report.Verdict(null, List.of(), false));
    }

    private static Report.WindowTable windows(Series req) {
        if (req == null || req.size() == 0) return null;
        List<String> cols = WINDOW_COLUMNS.stream().filter(c -> req.column(c).isPresent()).toList();
        List<double[]> rows = new ArrayList<>();
        for (int i = 0; i < req.size(); i++) {
            double[] row = new double[cols.size()];
            for (int c = 0; c < cols.size(); c++) row[c] = req.column(cols.get(c)).orElseThrow()[i];
            rows.add(row);
        }
        return new Report.WindowTable(req.intervalMs(), cols, req.t(), rows);
    }

    // The planned charts first, then one chart per series for columns no plan covers.
    private static List<Report.Chart> charts(CaseInfo info, Map<String, Series> series) {
        long start = info.startEpochMs();
        if (start <= 0) start = series.values().stream().filter(s -> s.size() > 0).mapToLong(s -> s.t().get(0)).min().orElse(0);
        double xMax = Math.max(info.endEpochMs() - start, 0) / 1000.0;
        for (Series s : series.values()) if (s.size() > 0) xMax = Math.max(xMax, (s.t().get(s.size() - 1) + s.intervalMs() - start) / 1000.0);
        List<Report.Chart> out = new ArrayList<>();
        Set<String> drawn = new LinkedHashSet<>();
        for (ChartPlan.Spec spec : ChartPlan.CHARTS) {
            List<Report.Line> lines = new ArrayList<>();
            for (String ref : spec.refs()) line(series, ref, start).ifPresent(l -> { lines.add(l); drawn.add(ref); });
            if (!lines.isEmpty()) out.add(new Report.Chart(spec.id(), spec.title(), spec.unit(), xMax, lines));
        }
        for (Series s : series.values()) {
            List<Report.Line> lines = new ArrayList<>();
            for (String c : s.columns().keySet()) {
                String ref = s.name() + "#" + c;
                if (!drawn.contains(ref)) line(series, ref, start).ifPresent(lines::add);
            }
            if (!lines.isEmpty()) out.add(new Report.Chart("series-" + s.name(), "Series " + s.name(), unitOf(s, lines), xMax, lines));
        }
        return out;
    }

    // A window is plotted at its middle, so 15 s load windows and 1 s GC windows line up in time.
    private static Optional<Report.Line> line(Map<String, Series> series, String ref, long start) {
        String[] p = ref.split("#", 2);
        Series s = series.get(p[0]);
        if (s == null || s.column(p[1]).isEmpty()) return Optional.empty();
        double[] v = s.column(p[1]).get();
        double[] x = new double[s.size()];
        Double[] y = new Double[s.size()];
        for (int i = 0; i < s.size(); i++) {
            x[i] = (s.t().get(i) + s.intervalMs() / 2.0 - start) / 1000.0;
            y[i] = Double.isFinite(v[i]) ? v[i] : null;
        }
        String unit = s.units().get(p[1]);
        return Optional.of(new Report.Line(p[1] + (unit == null ? "" : " (" + unit + ")"), "series/" + ref, x, y));
    }

    private static String unitOf(Series s, List<Report.Line> lines) {
        Set<String> units = new LinkedHashSet<>();
        for (Report.Line l : lines) units.add(s.units().getOrDefault(l.ref().substring(l.ref().indexOf('#') + 1), ""));
        return units.size() == 1 ? units.iterator().next() : "";
    }

    // Collapsed stacks when the collector wrote them; otherwise each kind a recording holds.
    private static List<Report.Flame> flames(CaseFile cf) {
        Path dir = cf.dir().resolve("profiles");
        if (!Files.isDirectory(dir)) return List.of();
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.sorted(ReportBuilder::byKind).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
        }
        List<Report.Flame> out = new ArrayList<>();
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (!name.endsWith(".collapsed")) continue;
            add(out, kindOf(name), "profiles/" + name, Collapsed.parse(f));
        }
        List<Path> jfrs = files.stream().filter(f -> f.getFileName().toString().endsWith(".jfr")).toList();
        long[] window = observed(cf);
        for (String kind : FLAME_KINDS) {
            if (jfrs.isEmpty() || out.stream().anyMatch(fl -> fl.kind().equals(kind))) continue;
            Path jfr = jfrs.stream().filter(f -> kindOf(f.getFileName().toString()).equals(kind)).findFirst().orElse(jfrs.get(0));
            add(out, kind, "profiles/" + jfr.getFileName() + " (" + kind + ")", JfrProfiles.read(jfr, kind, window[0], window[1]));
        }
        out.sort((a, b) -> Integer.compare(rank(a.kind()), rank(b.kind())));
        return out;
    }

    /** The case's observed window in epoch ms, or {0, 0} when case.json does not say. */
    private static long[] observed(CaseFile cf) {
        CaseInfo info = cf.info();
        return info == null ? new long[2] : new long[] {info.startEpochMs(), info.endEpochMs()};
    }

    private static void add(List<Report.Flame> out, String kind, String file, Collapsed.Node root) {
        if (root.value() > 0) out.add(new Report.Flame(kind, file, root.value(), Collapsed.toFlame(root)));
    }

    private static String kindOf(String fileName) {
        int dot = fileName.indexOf('.');
        return dot < 0 ? fileName : fileName.substring(0, dot);
    }

    // cpu, wall, alloc, lock first (the order the issue names), anything else after by name.
    private static int byKind(Path a, Path b) {
        int c = Integer.compare(rank(kindOf(a.getFileName().toString())), rank(kindOf(b.getFileName().toString())));
        return c != 0 ? c : a.compareTo(b);
    }

    private static int rank(String kind) {
        int i = FLAME_KINDS.indexOf(kind);
        return i < 0 ? FLAME_KINDS.size() : i;
    }

    private static List<Report.EvidenceTable> tables(CaseFile cf, List<Finding> findings) {
        List<Report.EvidenceTable> out = new ArrayList<>();
        for (String name : TableOrder.sorted(cf.tableNames())) {
            Table t = cf.table(name).orElseThrow();
            int shown = Math.min(t.rows().size(), Math.max(TABLE_ROWS, Verdicts.maxRowReferenced(findings, name) + 1));
            List<Map<String, String>> rows = new ArrayList<>();
            for (int i = 0; i < shown; i++) {
                Map<String, String> r = new LinkedHashMap<>();
                for (String c : columns(t)) r.put(c, Cells.text(t.rows().get(i).get(c)));
                rows.add(r);
            }
            out.add(new Report.EvidenceTable(name, TableOrder.title(name), columns(t), rows, t.rows().size(), t.meta()));
        }
        return out;
    }

    // Declared columns first, then any a collector added to rows without declaring.
    private static List<String> columns(Table t) {
        Set<String> cols = new LinkedHashSet<>(t.columns());
        for (Map<String, Object> r : t.rows()) cols.addAll(r.keySet());
        return List.copyOf(cols);
    }
}
