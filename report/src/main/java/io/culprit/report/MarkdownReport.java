package io.culprit.report;

import io.culprit.model.Finding;
import io.culprit.report.internal.Cells;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The same content as the HTML page, for a ticket: verdict, hypotheses, windows, each chart as
 * a min / mean / max line per column, each flame graph as its hottest paths, evidence tables.
 */
public final class MarkdownReport {
    static final int HOT_PATHS = 10;
    private static final int TABLE_ROWS = 10;

    private MarkdownReport() { }

    public static String render(Report r) {
        StringBuilder m = new StringBuilder();
        m.append("# culprit report — case ").append(r.caseName()).append("\n\n");
        m.append(r.info().source() == null ? "" : r.info().source() + " · ")
                .append(Cells.num(r.info().durationSeconds())).append(" s observed\n\n");
        verdict(m, r);
        hypotheses(m, r);
        windows(m, r);
        charts(m, r);
        flames(m, r);
        tables(m, r);
        return m.toString();
    }

    private static void verdict(StringBuilder m, Report r) {
        Finding top = r.verdict().top();
        m.append("## Verdict\n\n");
        if (top == null) {
            m.append(r.findings().isEmpty() ? "No findings: the rules have not run over this case file.\n\n"
                    : "No root cause found: no hypothesis is WARN or CRITICAL.\n\n");
            return;
        }
        m.append("**").append(r.verdict().symptomOnly() ? "#1 finding, no cause identified" : "#1 root cause").append(" [")
                .append(top.severity()).append("] ").append(top.id()).append(": ").append(cell(top.title())).append("**\n\n");
        m.append(top.summary()).append("\n\n");
        if (top.culprit() != null) m.append("- **culprit:** `").append(top.culprit()).append("`\n");
        if (r.verdict().chain().size() > 1) m.append("- **chain:** ").append(String.join(" → ", r.verdict().chain())).append('\n');
        if (top.explanation() != null) m.append("- **why:** ").append(top.explanation()).append('\n');
        if (top.fix() != null) m.append("- **fix:** ").append(top.fix()).append('\n');
        if (top.confirm() != null) m.append("- **confirm:** `").append(top.confirm()).append("`\n");
        if (!top.evidence().isEmpty()) m.append("- **evidence:** ").append(code(top.evidence())).append('\n');
        m.append('\n');
    }

    private static void hypotheses(StringBuilder m, Report r) {
        m.append("## Hypotheses, ranked (").append(r.findings().size()).append(" checked)\n\n");
        m.append("| # | verdict | severity | hypothesis | key evidence | evidence |\n|---|---|---|---|---|---|\n");
        int n = 1;
        for (Finding f : r.findings()) {
            m.append("| ").append(n++).append(" | ").append(f.verdict()).append(" | ").append(f.severity()).append(" | ")
                    .append(f.id()).append(" | ").append(cell(f.summary())).append(" | ").append(code(f.evidence())).append(" |\n");
        }
        m.append('\n');
    }

    private static void windows(StringBuilder m, Report r) {
        Report.WindowTable w = r.windows();
        if (w == null) return;
        m.append("## Per window (").append(Cells.num(w.intervalMs() / 1000.0)).append(" s)\n\n| start (UTC) |");
        for (String c : w.columns()) m.append(' ').append(c).append(" |");
        m.append("\n|---|").append("---:|".repeat(w.columns().size())).append('\n');
        for (int i = 0; i < w.rows().size(); i++) {
            m.append("| ").append(Instant.ofEpochMilli(w.t().get(i)).toString(), 11, 19).append(" |");
            for (double v : w.rows().get(i)) m.append(' ').append(Cells.num(v)).append(" |");
            m.append('\n');
        }
        m.append('\n');
    }

    private static void charts(StringBuilder m, Report r) {
        if (r.charts().isEmpty()) return;
        m.append("## Over time (min / mean / max per window)\n\n| chart | column | min | mean | max | windows |\n|---|---|---:|---:|---:|---:|\n");
        for (Report.Chart c : r.charts()) {
            for (Report.Line l : c.lines()) {
                double min = Double.POSITIVE_INFINITY, max = Double.NEGATIVE_INFINITY, sum = 0;
                int k = 0;
                for (Double y : l.y()) if (y != null) { min = Math.min(min, y); max = Math.max(max, y); sum += y; k++; }
                m.append("| ").append(c.title()).append(" | `").append(l.ref()).append("` | ")
                        .append(k == 0 ? "-" : Cells.num(min)).append(" | ").append(k == 0 ? "-" : Cells.num(sum / k)).append(" | ")
                        .append(k == 0 ? "-" : Cells.num(max)).append(" | ").append(k).append(" |\n");
            }
        }
        m.append('\n');
    }

    private static void flames(StringBuilder m, Report r) {
        for (Report.Flame f : r.flames()) {
            m.append("## Flame graph ").append(f.kind()).append(" (").append(f.file()).append(", ")
                    .append(Cells.num(f.samples())).append(" samples): hottest paths\n\n| share | samples | leaf frame | path |\n|---:|---:|---|---|\n");
            for (Path p : hottest(f.root(), HOT_PATHS)) {
                m.append("| ").append(String.format(java.util.Locale.ROOT, "%.1f%%", 100.0 * p.self / f.samples())).append(" | ")
                        .append(Cells.num(p.self)).append(" | `").append(p.frames.get(p.frames.size() - 1)).append("` | ")
                        .append(cell(String.join(" ← ", tail(p.frames)))).append(" |\n");
            }
            m.append('\n');
        }
    }

    private record Path(List<String> frames, long self) { }

    /** Leaf-most paths ranked by self samples: what the widest tops of the flame graph are. */
    static List<Path> hottest(Report.FlameNode root, int n) {
        List<Path> all = new ArrayList<>();
        collect(root, new ArrayList<>(), all);
        all.sort(Comparator.comparingLong(Path::self).reversed());
        return all.subList(0, Math.min(n, all.size()));
    }

    private static void collect(Report.FlameNode node, List<String> path, List<Path> out) {
        long self = node.value();
        for (Report.FlameNode c : node.children()) self -= c.value();
        List<String> here = new ArrayList<>(path);
        if (!path.isEmpty() || !node.name().equals("all")) here.add(node.name());
        if (self > 0 && !here.isEmpty()) out.add(new Path(here, self));
        for (Report.FlameNode c : node.children()) collect(c, here, out);
    }

    // Leaf first, five frames: enough to see who called the hot frame without a wall of text.
    private static List<String> tail(List<String> frames) {
        List<String> out = new ArrayList<>();
        for (int i = frames.size() - 1; i >= 0 && out.size() < 5; i--) out.add(frames.get(i));
        return out;
    }

    private static void tables(StringBuilder m, Report r) {
        for (Report.EvidenceTable t : r.tables()) {
            int shown = Math.min(TABLE_ROWS, t.rows().size());
            m.append("## ").append(t.title()).append(" (tables/").append(t.name()).append(", top ").append(shown)
                    .append(" of ").append(t.totalRows()).append(")\n\n| # |");
            for (String c : t.columns()) m.append(' ').append(c).append(" |");
            m.append("\n|---|").append("---|".repeat(t.columns().size())).append('\n');
            for (int i = 0; i < shown; i++) {
                m.append("| ").append(i).append(" |");
                for (String c : t.columns()) {
                    String v = t.rows().get(i).get(c);
                    // A stack keeps its top frame: the rest belongs in the HTML page.
                    if (v != null && v.contains("\n")) v = v.substring(0, v.indexOf('\n')) + " …";
                    m.append(' ').append(cell(v)).append(" |");
                }
                m.append('\n');
            }
            m.append('\n');
        }
    }

    private static String code(List<String> refs) {
        return refs.isEmpty() ? "" : "`" + String.join("` `", refs) + "`";
    }

    static String cell(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
    }
}
