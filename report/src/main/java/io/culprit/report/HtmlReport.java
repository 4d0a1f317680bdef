package io.culprit.report;

import static io.culprit.report.internal.Html.esc;

import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.report.internal.Cells;
import io.culprit.report.internal.Html;
import io.culprit.report.internal.Refs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One self-contained HTML page per case: verdict and hypotheses first, then the per-window
 * table, charts on one time axis, flame graphs and evidence tables. Chart.js and our own script
 * are inlined and a Content-Security-Policy forbids every fetch, so the page works offline and
 * cannot leak anything when opened from a ticket.
 *
 * <p>Text content is rendered here (readable without script, testable without a browser);
 * charts and flame graphs are drawn by {@code report.js} from the data embedded in the page.
 */
public final class HtmlReport {
    public static final String FILE_NAME = "report.html";
    private static final String CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

    private HtmlReport() { }

    /** Writes {@code report.html} into the case directory from its {@code findings.json}. */
    public static Path write(CaseFile cf) {
        return write(cf, cf.findings(), cf.dir().resolve(FILE_NAME));
    }

    /** Writes the report of {@code findings} (ranked, verdicts decided) to {@code out}. */
    public static Path write(CaseFile cf, List<Finding> findings, Path out) {
        return writeString(out, render(ReportBuilder.build(cf, findings)));
    }

    static Path writeString(Path out, String html) {
        try {
            if (out.getParent() != null) Files.createDirectories(out.getParent());
            Files.writeString(out, html, StandardCharsets.UTF_8);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + out + ": " + e.getMessage(), e);
        }
    }

    public static String render(Report r) {
        Refs refs = new Refs(r);
        StringBuilder h = new StringBuilder(64 * 1024);
        head(h, "culprit — case " + r.caseName());
        h.append("<header><h1>culprit report — case ").append(esc(r.caseName())).append("</h1><p class=\"meta\">")
                .append(esc(caseLine(r))).append("</p></header>\n");
        h.append("<nav>").append(nav(r)).append("</nav>\n<main>\n");
        VerdictHtml.verdict(h, r, refs);
        VerdictHtml.hypotheses(h, r, refs);
        windows(h, r);
        charts(h, r);
        flames(h, r);
        tables(h, r);
        h.append("</main>\n");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("charts", r.charts());
        data.put("flames", FlameData.compact(r.flames()));
        tail(h, data);
        return h.toString();
    }

    static void head(StringBuilder h, String title) {
        h.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta http-equiv=\"Content-Security-Policy\" content=\"").append(CSP).append("\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>").append(esc(title)).append("</title>\n<style>")
                .append(Html.resource("io/culprit/report/report.css")).append("</style></head>\n<body>\n");
    }

    static void tail(StringBuilder h, Object data) {
        h.append("<script>").append(Html.chartJs()).append("</script>\n")
                .append("<script type=\"application/json\" id=\"culprit-data\">").append(Html.scriptJson(data)).append("</script>\n")
                .append("<script>").append(Html.resource("io/culprit/report/report.js")).append("</script>\n</body></html>\n");
    }

    private static String caseLine(Report r) {
        List<String> parts = new ArrayList<>();
        if (r.info().source() != null) parts.add(r.info().source());
        if (r.info().startEpochMs() > 0) parts.add(Instant.ofEpochMilli(r.info().startEpochMs()).toString());
        parts.add(Cells.num(r.info().durationSeconds()) + " s observed");
        Map<String, String> t = r.info().target();
        for (String k : List.of("mainClass", "pid", "jdk", "cpus")) if (t.get(k) != null) parts.add(k + " " + t.get(k));
        return String.join(" · ", parts);
    }

    private static String nav(Report r) {
        StringBuilder n = new StringBuilder("<a href=\"#verdict\">Verdict</a> <a href=\"#hypotheses\">Hypotheses</a>");
        if (r.windows() != null) n.append(" <a href=\"#windows\">Windows</a>");
        if (!r.charts().isEmpty()) n.append(" <a href=\"#charts\">Charts</a>");
        if (!r.flames().isEmpty()) n.append(" <a href=\"#flames\">Flame graphs</a>");
        if (!r.tables().isEmpty()) n.append(" <a href=\"#tables\">Tables</a>");
        return n.toString();
    }

    private static void windows(StringBuilder h, Report r) {
        Report.WindowTable w = r.windows();
        if (w == null) return;
        h.append("<section id=\"windows\"><h2>Per window (").append(Cells.num(w.intervalMs() / 1000.0))
                .append(" s windows, series/requests)</h2>\n<table class=\"num\"><thead><tr><th>start (UTC)</th><th>+s</th>");
        for (String c : w.columns()) h.append("<th>").append(esc(c)).append("</th>");
        h.append("</tr></thead><tbody>\n");
        long t0 = r.info().startEpochMs() > 0 ? r.info().startEpochMs() : w.t().get(0);
        for (int i = 0; i < w.rows().size(); i++) {
            long t = w.t().get(i);
            h.append("<tr><td>").append(Instant.ofEpochMilli(t).toString(), 11, 19).append("</td><td>")
                    .append(Cells.num((t - t0) / 1000.0)).append("</td>");
            for (double v : w.rows().get(i)) h.append("<td>").append(esc(Cells.num(v))).append("</td>");
            h.append("</tr>\n");
        }
        h.append("</tbody></table></section>\n");
    }

    private static void charts(StringBuilder h, Report r) {
        if (r.charts().isEmpty()) return;
        h.append("<section id=\"charts\"><h2>Over time <span class=\"hint\">(x: seconds since the case started; every chart"
                + " shares it)</span></h2>\n<div class=\"charts\">\n");
        for (Report.Chart c : r.charts()) {
            h.append("<figure class=\"chart\" id=\"chart-").append(Html.id(c.id())).append("\"><figcaption>").append(esc(c.title()));
            if (!c.unit().isEmpty()) h.append(" <span class=\"unit\">").append(esc(c.unit())).append("</span>");
            h.append("</figcaption><div class=\"canvas-box\"><canvas data-chart=\"").append(Html.id(c.id()))
                    .append("\"></canvas></div></figure>\n");
        }
        h.append("</div></section>\n");
    }

    private static void flames(StringBuilder h, Report r) {
        if (r.flames().isEmpty()) return;
        h.append("<section id=\"flames\"><h2>Flame graphs <span class=\"hint\">(root at the top; click a frame to zoom,"
                + " click the root to reset; search highlights matching frames)</span></h2>\n");
        for (int i = 0; i < r.flames().size(); i++) {
            Report.Flame f = r.flames().get(i);
            h.append("<div class=\"flame\" id=\"flame-").append(Html.id(f.kind())).append("\" data-flame=\"").append(i)
                    .append("\"><h3>").append(esc(f.kind())).append(" <span class=\"unit\">").append(esc(f.file())).append(", ")
                    .append(Cells.num(f.samples())).append(" samples</span></h3>")
                    .append("<div class=\"flame-bar\"><input type=\"search\" placeholder=\"search frames (substring)\">")
                    .append("<button type=\"button\" class=\"reset\">reset zoom</button><span class=\"matched\"></span></div>")
                    .append("<div class=\"flame-box\"></div></div>\n");
        }
        h.append("</section>\n");
    }

    private static void tables(StringBuilder h, Report r) {
        if (r.tables().isEmpty()) return;
        h.append("<section id=\"tables\"><h2>Evidence tables</h2>\n");
        for (Report.EvidenceTable t : r.tables()) {
            h.append("<div class=\"etable\" id=\"table-").append(Html.id(t.name())).append("\"><h3>").append(esc(t.title()))
                    .append(" <span class=\"unit\">tables/").append(esc(t.name())).append(", ");
            h.append(t.rows().size() < t.totalRows() ? "top " + t.rows().size() + " of " + t.totalRows() : t.totalRows() + " rows");
            if (t.meta().get("seconds") != null) h.append(", ").append(esc(Cells.text(t.meta().get("seconds")))).append(" s");
            if (t.meta().get("requests") != null) h.append(", ").append(esc(Cells.text(t.meta().get("requests")))).append(" requests");
            h.append("</span></h3><table><thead><tr><th>#</th>");
            for (String c : t.columns()) h.append("<th>").append(esc(c)).append("</th>");
            h.append("</tr></thead><tbody>\n");
            for (int i = 0; i < t.rows().size(); i++) {
                h.append("<tr id=\"").append(Refs.rowId(t.name(), i)).append("\"><td>").append(i).append("</td>");
                for (String c : t.columns()) h.append("<td>").append(cell(t.rows().get(i).get(c))).append("</td>");
                h.append("</tr>\n");
            }
            h.append("</tbody></table></div>\n");
        }
        h.append("</section>\n");
    }

    // Stacks are long: the top frame shows, the rest folds away.
    private static String cell(String v) {
        if (v == null) return "";
        int nl = v.indexOf('\n');
        if (nl < 0) return esc(v);
        long frames = v.chars().filter(c -> c == '\n').count() + 1;
        return "<details><summary>" + esc(v.substring(0, nl)) + " <span class=\"unit\">(" + frames + " frames)</span></summary><pre>"
                + esc(v.substring(nl + 1)) + "</pre></details>";
    }
}
