package io.culprit.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportTest {
    @TempDir Path tmp;

    @Test
    void verdictFirstThenWindowsChartsFlamesTables() {
        CaseFile cf = TestCases.copy("converter-rebuild", tmp);
        TestCases.profile(cf, "cpu.collapsed", "cpu.collapsed");
        String html = HtmlReport.render(TestCases.report(cf));

        TestCases.hasInOrder(html, "id=\"verdict\"", "#1 root cause", "repeated-construction",
                "id=\"hypotheses\"", "id=\"windows\"", "id=\"charts\"", "id=\"flames\"", "id=\"tables\"");
        // The verdict carries the rule's own numbers and culprit, not a placeholder.
        String verdict = html.substring(html.indexOf("id=\"verdict\""), html.indexOf("id=\"hypotheses\""));
        assertThat(verdict).contains("culprit</dt>").contains("fix</dt>").containsPattern("\\d");
        TestCases.has(html, "id=\"chart-latency\"", "id=\"chart-gc\"", "id=\"chart-heap\"", "id=\"chart-cpu\"",
                "id=\"flame-cpu\"", "1,000 samples");
    }

    @Test
    void everyEvidenceLinkLandsOnAnElementOfThePage() {
        CaseFile cf = TestCases.copy("timer-lock-log-storm", tmp);
        String html = HtmlReport.render(TestCases.report(cf));

        List<String> targets = new ArrayList<>();
        Matcher m = Pattern.compile("<a class=\"(?:ev|ev-sum|num)\" href=\"#([^\"]+)\"").matcher(html);
        while (m.find()) targets.add(m.group(1));
        assertThat(targets).isNotEmpty();
        for (String t : targets) TestCases.has(html, "id=\"" + t + "\"");
        // A row ref scrolls to that row, a series ref to the chart plotting the column.
        TestCases.has(html, "href=\"#row-locks-0\">tables/locks#0</a>", "<tr id=\"row-locks-0\">",
                "href=\"#chart-latency\">series/requests#p99Ms</a>");
        // Each number of the summary links to its own source: totals to the table, the top lock's events to its row,
        // the runner-up's blocked time to the second row.
        TestCases.hasInOrder(html, "<tr id=\"finding-lock-contention\"",
                "threads spent <a class=\"num\" href=\"#table-locks\" title=\"tables/locks\">1,230 s</a> blocked",
                "(<a class=\"num\" href=\"#table-locks\" title=\"tables/locks\">46 %</a> of request time)",
                "<a class=\"num\" href=\"#row-locks-0\" title=\"tables/locks#0\">180,000</a> events",
                "(<a class=\"num\" href=\"#row-locks-1\" title=\"tables/locks#1\">30 s</a>");
    }

    @Test
    void aFindingWithoutTaggedNumbersLinksItsWholeSummaryToItsFirstEvidence() {
        CaseFile cf = TestCases.copy("timer-lock-log-storm", tmp);
        // As read from a findings.json written before rules tagged their numbers.
        List<Finding> old = TestCases.diagnose(cf).stream().map(f -> new Finding(f.id(), f.title(), f.severity(), f.score(),
                f.verdict(), f.summary(), f.explanation(), f.fix(), f.confirm(), f.evidence(), f.explains(), f.culprit())).toList();
        String html = HtmlReport.render(ReportBuilder.build(cf, old));

        TestCases.has(html, "<tr id=\"finding-lock-contention\"", "<a class=\"ev-sum\" href=\"#row-locks-0\">threads spent 1,230 s");
        TestCases.lacks(html, "<a class=\"num\"");
    }

    @Test
    void pageIsSelfContainedAndForbidsFetches() {
        CaseFile cf = TestCases.copy("gc-pool-starvation", tmp);
        String html = HtmlReport.render(TestCases.report(cf));

        TestCases.has(html, "Content-Security-Policy\" content=\"default-src 'none'", "window.Chart=");  // Chart.js inlined
        TestCases.lacks(html, "<script[^>]+src=");
        TestCases.lacks(html, "<link[^>]+href=");
        TestCases.lacks(html, "sourceMappingURL");
    }

    @Test
    void textFromTheCaseIsEscapedAndCannotCloseTheDataScript() {
        CaseFile cf = TestCases.copy("healthy", tmp);
        cf.write(new io.culprit.model.Table("exceptions", List.of("type", "count"),
                List.of(java.util.Map.of("type", "</script><img src=x onerror=alert(1)>", "count", 3))));
        String html = HtmlReport.render(TestCases.report(cf));

        TestCases.lacks(html, "<img src=x");
        TestCases.has(html, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;", "No root cause found");
    }

    @Test
    void writesReportHtmlIntoTheCaseDirectory() throws Exception {
        CaseFile cf = TestCases.copy("gc-pool-starvation", tmp);
        cf.writeFindings(TestCases.diagnose(cf));
        Path out = HtmlReport.write(cf);

        assertThat(out).isEqualTo(cf.dir().resolve("report.html"));
        TestCases.has(Files.readString(out), "gc-pressure: GC pressure",
                "gc-pressure</a> → <a href=\"#finding-pool-starvation\">pool-starvation</a>");
    }
}
