package io.culprit.report;

import static io.culprit.report.internal.Html.esc;

import io.culprit.model.Finding;
import io.culprit.model.Verdict;
import io.culprit.report.internal.Cells;
import io.culprit.report.internal.NumberLinks;
import io.culprit.report.internal.Refs;
import java.util.List;
import java.util.Optional;

/** The top of the page: the verdict as the terminal shows it, then every hypothesis ranked. */
final class VerdictHtml {
    private VerdictHtml() { }

    static void verdict(StringBuilder h, Report r, Refs refs) {
        Finding top = r.verdict().top();
        h.append("<section id=\"verdict\">");
        if (top == null) {
            long judged = r.findings().stream().filter(f -> f.verdict() != Verdict.NOT_ASSESSED).count();
            h.append("<h2>Verdict</h2><p class=\"healthy\">").append(r.findings().isEmpty()
                    ? "No findings: the rules have not run over this case file (run culprit diagnose --case DIR)."
                    : "No root cause found: " + judged + " of " + r.findings().size()
                    + " hypotheses judged on evidence, none WARN or CRITICAL.").append("</p></section>\n");
            return;
        }
        h.append("<h2>").append(r.verdict().symptomOnly() ? "#1 finding, no cause identified" : "#1 root cause").append("</h2>");
        h.append("<div class=\"root sev-").append(top.severity()).append("\"><h3><span class=\"badge\">").append(top.severity())
                .append("</span> ").append(esc(top.id())).append(": ").append(esc(top.title())).append("</h3>");
        h.append("<p class=\"summary\">").append(linked(top, refs)).append("</p><dl>");
        dd(h, "culprit", top.culprit() == null ? null : "<code>" + esc(top.culprit()) + "</code>");
        if (r.verdict().chain().size() > 1) {
            StringBuilder c = new StringBuilder();
            for (String id : r.verdict().chain()) {
                c.append(c.length() == 0 ? "" : " → ").append("<a href=\"#finding-").append(esc(id)).append("\">").append(esc(id)).append("</a>");
            }
            dd(h, "chain", c.toString());
        }
        dd(h, "why", NumberLinks.html(top.explanation(), top.numbers(), refs));
        dd(h, "fix", esc(top.fix()));
        dd(h, "confirm", top.confirm() == null ? null : "<code>" + esc(top.confirm()) + "</code>");
        dd(h, "evidence", evidence(top.evidence(), refs));
        h.append("</dl></div></section>\n");
    }

    static void hypotheses(StringBuilder h, Report r, Refs refs) {
        h.append("<section id=\"hypotheses\"><h2>Hypotheses, ranked (").append(r.findings().size()).append(" checked)</h2>\n")
                .append("<table><thead><tr><th>#</th><th>verdict</th><th>severity</th><th>score</th><th>hypothesis</th>")
                .append("<th>key evidence</th><th>evidence</th></tr></thead><tbody>\n");
        int n = 1;
        for (Finding f : r.findings()) {
            h.append("<tr id=\"finding-").append(esc(f.id())).append("\" class=\"v-").append(f.verdict()).append(" sev-")
                    .append(f.severity()).append("\"><td>").append(n++).append("</td><td>").append(f.verdict()).append("</td><td>")
                    .append(f.severity()).append("</td><td>").append(Cells.num(f.score())).append("</td><td><b>")
                    .append(esc(f.id())).append("</b><br>").append(esc(f.title())).append("</td><td>").append(linked(f, refs));
            if (f.culprit() != null) h.append("<br><span class=\"unit\">culprit</span> <code>").append(esc(f.culprit())).append("</code>");
            if (!f.explains().isEmpty()) h.append("<br><span class=\"unit\">explains</span> ").append(esc(String.join(", ", f.explains())));
            h.append("</td><td>").append(evidence(f.evidence(), refs)).append("</td></tr>\n");
        }
        h.append("</tbody></table></section>\n");
    }

    /**
     * The summary carries the numbers: each number the rule tagged links to the chart, row or flame
     * graph it came from. A finding without tags (written before rules tagged, or whose refs the
     * page lacks) links the whole sentence to where its first evidence is, as before.
     */
    private static String linked(Finding f, Refs refs) {
        if (NumberLinks.links(f.summary(), f.numbers(), refs)) return NumberLinks.html(f.summary(), f.numbers(), refs);
        Optional<String> target = f.evidence().stream().map(refs::target).flatMap(Optional::stream).findFirst();
        return target.map(t -> "<a class=\"ev-sum\" href=\"#" + t + "\">" + esc(f.summary()) + "</a>").orElse(esc(f.summary()));
    }

    private static void dd(StringBuilder h, String label, String html) {
        if (html == null || html.isEmpty()) return;
        h.append("<dt>").append(label).append("</dt><dd>").append(html).append("</dd>");
    }

    /** Each ref a link to the chart, row or table it names; unlinked (and marked) when absent. */
    static String evidence(List<String> evidence, Refs refs) {
        StringBuilder b = new StringBuilder();
        for (String ref : evidence) {
            Optional<String> target = refs.target(ref);
            b.append(b.length() == 0 ? "" : " ");
            if (target.isPresent()) {
                b.append("<a class=\"ev\" href=\"#").append(target.get()).append("\">").append(esc(ref)).append("</a>");
            } else {
                b.append("<span class=\"ev missing\" title=\"not in this case file\">").append(esc(ref)).append("</span>");
            }
        }
        return b.toString();
    }
}
