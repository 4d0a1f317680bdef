package io.culprit.report;

import io.culprit.model.CaseInfo;
import io.culprit.model.Finding;
import java.util.List;
import java.util.Map;

/**
 * The content of a report, independent of its format: HTML, Markdown and JSON render the same
 * object, in the same order (verdict first, then windows, charts, flame graphs, tables).
 * Built by {@link ReportBuilder}; {@code --format json} is this object serialized.
 */
public record Report(String caseName, CaseInfo info, Verdict verdict, List<Finding> findings,
                     WindowTable windows, List<Chart> charts, List<Flame> flames, List<EvidenceTable> tables) {

    /** The #1 finding and its causal chain (ids, root first); {@code top} null when healthy. */
    public record Verdict(Finding top, List<String> chain, boolean symptomOnly) { }

    /** Per-window latency and rate, one row per window of the {@code requests} series. */
    public record WindowTable(long intervalMs, List<String> columns, List<Long> t, List<double[]> rows) { }

    /**
     * One chart on the shared time axis: x is seconds since the case started, so every chart
     * spans the same window. {@code anchors} are the evidence refs it answers
     * ({@code series/gc#pauseSumMs}).
     */
    public record Chart(String id, String title, String unit, double xMax, List<Line> lines) { }

    /** One plotted column; {@code x} seconds since start, {@code y} null where not measured. */
    public record Line(String label, String ref, double[] x, Double[] y) { }

    /** A flame graph from {@code profiles/<kind>.collapsed}: a pruned call tree. */
    public record Flame(String kind, String file, long samples, FlameNode root) { }

    /**
     * A frame and its inclusive samples; {@code before} is set only in a differential graph (the
     * baseline's samples for the same path, scaled to this profile's total).
     */
    public record FlameNode(String name, long value, Double before, List<FlameNode> children) { }

    /** A ranked evidence table, cells rendered as text; the first rows, in rank order, of {@code totalRows}. */
    public record EvidenceTable(String name, String title, List<String> columns, List<Map<String, String>> rows,
                                int totalRows, Map<String, Object> meta) { }
}
