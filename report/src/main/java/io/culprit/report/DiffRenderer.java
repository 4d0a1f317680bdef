package io.culprit.report;

import static io.culprit.report.internal.Html.esc;

import io.culprit.model.Finding;
import io.culprit.report.internal.Cells;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@link CaseDiff} as terminal text, Markdown, a self-contained HTML page, or JSON. */
public final class DiffRenderer {
    private DiffRenderer() { }

    public static String text(CaseDiff d) {
        StringBuilder t = new StringBuilder("culprit diff — before " + d.before() + ", after " + d.after() + "\n\n");
        String fmt = "%-24s %12s %12s %9s  %s%n";
        t.append(String.format(Locale.ROOT, fmt, "measure", "before", "after", "change", ""));
        for (CaseDiff.Metric m : d.metrics()) {
            t.append(String.format(Locale.ROOT, fmt, m.name(), Cells.num(m.before()), Cells.num(m.after()), pct(m.change()),
                    verdict(m)));
        }
        findings(t, "Resolved", d.resolved(), false);
        findings(t, "Still present", d.stillPresent(), false);
        findings(t, "New", d.appeared(), false);
        if (d.flame() != null) t.append("\nDifferential CPU flame graph: culprit diff --format html --out diff.html\n");
        return t.toString();
    }

    public static String markdown(CaseDiff d) {
        StringBuilder t = new StringBuilder("# culprit diff — before `" + d.before() + "`, after `" + d.after() + "`\n\n");
        t.append("| measure | before | after | change | |\n|---|---:|---:|---:|---|\n");
        for (CaseDiff.Metric m : d.metrics()) {
            t.append("| ").append(m.name()).append(" | ").append(Cells.num(m.before())).append(" | ").append(Cells.num(m.after()))
                    .append(" | ").append(pct(m.change())).append(" | ").append(verdict(m)).append(" |\n");
        }
        findings(t, "## Resolved", d.resolved(), true);
        findings(t, "## Still present", d.stillPresent(), true);
        findings(t, "## New", d.appeared(), true);
        if (d.flame() != null) {
            t.append("\n## CPU: frames whose share moved most\n\n| frame | before | after |\n|---|---:|---:|\n");
            for (Map.Entry<String, double[]> e : FlameDelta.movers(d.flame().root(), 10).entrySet()) {
                t.append("| `").append(MarkdownReport.cell(e.getKey())).append("` | ").append(pctOf(e.getValue()[0], d.flame().samples()))
                        .append(" | ").append(pctOf(e.getValue()[1], d.flame().samples())).append(" |\n");
            }
        }
        return t.toString();
    }

    public static String html(CaseDiff d) {
        StringBuilder h = new StringBuilder(32 * 1024);
        HtmlReport.head(h, "culprit diff — " + d.before() + " → " + d.after());
        h.append("<header><h1>culprit diff — before ").append(esc(d.before())).append(", after ").append(esc(d.after()))
                .append("</h1></header>\n<main>\n<section id=\"measures\"><h2>Before / after</h2><table class=\"num\"><thead><tr>")
                .append("<th>measure</th><th>before</th><th>after</th><th>change</th><th></th></tr></thead><tbody>\n");
        for (CaseDiff.Metric m : d.metrics()) {
            h.append("<tr class=\"").append(m.improved() ? "better" : "").append("\"><td>").append(esc(m.name())).append("</td><td>")
                    .append(Cells.num(m.before())).append("</td><td>").append(Cells.num(m.after())).append("</td><td>")
                    .append(pct(m.change())).append("</td><td>").append(verdict(m)).append("</td></tr>\n");
        }
        h.append("</tbody></table></section>\n");
        htmlFindings(h, "resolved", "Resolved", d.resolved());
        htmlFindings(h, "still", "Still present", d.stillPresent());
        htmlFindings(h, "new", "New", d.appeared());
        if (d.flame() != null) {
            h.append("<section id=\"flames\"><h2>Differential CPU flame graph <span class=\"hint\">(before and after overlaid, each frame as wide"
                    + " as its larger share of samples; red grew, blue shrank, deep blue is gone after; hover for both shares,"
                    + " click to zoom, search to highlight)</span></h2>")
                    .append("<div class=\"flame\" id=\"flame-cpu-diff\" data-flame=\"0\"><div class=\"flame-bar\">")
                    .append("<input type=\"search\" placeholder=\"search frames (substring)\"><button type=\"button\" class=\"reset\">")
                    .append("reset zoom</button><span class=\"matched\"></span></div><div class=\"flame-box\"></div></div></section>\n");
        }
        if (d.flame() != null) {
            // The same moves summed per frame name, with numbers: what a ticket quotes.
            h.append("<section id=\"movers\"><h2>CPU: frames whose share moved most</h2><table class=\"num\"><thead><tr>")
                    .append("<th>frame</th><th>before</th><th>after</th></tr></thead><tbody>\n");
            for (Map.Entry<String, double[]> e : FlameDelta.movers(d.flame().root(), 10).entrySet()) {
                h.append("<tr><td><code>").append(esc(e.getKey())).append("</code></td><td>")
                        .append(pctOf(e.getValue()[0], d.flame().samples())).append("</td><td>")
                        .append(pctOf(e.getValue()[1], d.flame().samples())).append("</td></tr>\n");
            }
            h.append("</tbody></table></section>\n");
        }
        h.append("</main>\n");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("charts", List.of());
        data.put("flames", d.flame() == null ? List.of() : FlameData.compact(List.of(d.flame())));
        HtmlReport.tail(h, data);
        return h.toString();
    }

    public static String json(CaseDiff d) {
        try {
            return io.culprit.model.CaseFile.json().writeValueAsString(d) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize the diff: " + e.getMessage(), e);
        }
    }

    private static void htmlFindings(StringBuilder h, String id, String title, List<CaseDiff.Change> changes) {
        h.append("<section id=\"").append(id).append("\"><h2>").append(title).append(" (").append(changes.size()).append(")</h2>");
        if (changes.isEmpty()) {
            h.append("<p class=\"hint\">none</p></section>\n");
            return;
        }
        h.append("<table><thead><tr><th>hypothesis</th><th>before</th><th>after</th></tr></thead><tbody>\n");
        for (CaseDiff.Change c : changes) {
            h.append("<tr><td><b>").append(esc(c.id())).append("</b>").append(rootBefore(c) ? " <span class=\"badge\">root cause before</span>" : "")
                    .append("<br>").append(esc(c.title())).append("</td><td>")
                    .append(esc(side(c.before()))).append("</td><td>").append(esc(side(c.after()))).append("</td></tr>\n");
        }
        h.append("</tbody></table></section>\n");
    }

    // One line per hypothesis (verdict before → after), then each side's summary: the numbers are the proof.
    private static void findings(StringBuilder t, String title, List<CaseDiff.Change> changes, boolean md) {
        t.append('\n').append(title).append(" (").append(changes.size()).append(")\n");
        if (md) t.append('\n');
        for (CaseDiff.Change c : changes) {
            t.append(md ? "- **" : "  ").append(c.id()).append(md ? "**" : "").append(": ").append(state(c.before()))
                    .append(" → ").append(state(c.after())).append(rootBefore(c) ? " (the root cause before)" : "").append('\n');
            for (Finding f : new Finding[] {c.before(), c.after()}) {
                if (f == null || f.summary() == null) continue;
                t.append(md ? "  - " : "      ").append(f == c.before() ? "before: " : "after: ").append(f.summary()).append('\n');
            }
        }
    }

    private static boolean rootBefore(CaseDiff.Change c) {
        return c.before() != null && c.before().verdict() == io.culprit.model.Verdict.CONFIRMED;
    }

    private static String state(Finding f) {
        return f == null ? "not checked" : f.severity() + "/" + f.verdict();
    }

    private static String side(Finding f) {
        return f == null ? "not checked" : f.severity() + "/" + f.verdict() + (f.summary() == null ? "" : " — " + f.summary());
    }

    private static String verdict(CaseDiff.Metric m) {
        double c = m.change();
        if (!Double.isFinite(c)) return "";
        if (Math.abs(c) < 0.05) return "same";
        return m.improved() ? "better" : "worse";
    }

    private static String pct(double c) {
        return Double.isFinite(c) ? String.format(Locale.ROOT, "%+.0f%%", 100 * c) : "-";
    }

    private static String pctOf(double v, long total) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * v / total);
    }
}
