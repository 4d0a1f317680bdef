package io.culprit.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.report.internal.NumberLinks;
import io.culprit.report.internal.Refs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Numbers in findings link to their evidence: matching rules, and every fixture's numbers on a real page. */
class NumberLinksTest {
    @TempDir Path tmp;

    @Test
    void everyNumberOfEveryFixtureLinksToAnElementOfItsPage() throws Exception {
        List<String> fixtures;
        try (Stream<Path> s = Files.list(TestCases.FIXTURES)) {
            fixtures = s.filter(p -> Files.isRegularFile(p.resolve("case.json"))).map(p -> p.getFileName().toString()).sorted().toList();
        }
        int linked = 0;
        for (String name : fixtures) {
            CaseFile cf = TestCases.copy(name, tmp);
            Report r = TestCases.report(cf);
            Refs refs = new Refs(r);
            String html = HtmlReport.render(r);
            for (Finding f : r.findings()) {
                for (Finding.NumberRef n : f.numbers()) {
                    String where = name + " " + f.id() + " " + n;
                    String target = refs.target(n.ref()).orElseThrow(() -> new AssertionError(where + ": the page has nothing for " + n.ref()));
                    TestCases.has(html, "id=\"" + target + "\"");
                    String link = "<a class=\"num\" href=\"#" + target + "\" title=\"" + n.ref() + "\">"
                            + io.culprit.report.internal.Html.esc(n.text()) + "</a>";
                    assertThat(NumberLinks.html(f.summary(), f.numbers(), refs) + NumberLinks.html(f.explanation(), f.numbers(), refs))
                            .as(where).contains(link);
                    linked++;
                }
            }
        }
        assertThat(linked).isGreaterThan(300);
    }

    @Test
    void aNumberLinksOnlyWhereItStandsAlone() {
        Refs refs = new Refs(TestCases.report(TestCases.copy("row-lock-prototype-beans", tmp)));
        String text = "SQL 100 ms, 1,024 MB, G1 and 1 call target(s) take 82 % then 82 % again.";
        String html = NumberLinks.html(text, List.of(new Finding.NumberRef("1", "tables/calls"),
                new Finding.NumberRef("82 %", "tables/calls"), new Finding.NumberRef("82 %", "tables/calls#0"),
                new Finding.NumberRef("9 s", "series/nowhere#x")), refs);
        assertThat(html).isEqualTo("SQL 100 ms, 1,024 MB, G1 and <a class=\"num\" href=\"#table-calls\" title=\"tables/calls\">1</a>"
                + " call target(s) take <a class=\"num\" href=\"#table-calls\" title=\"tables/calls\">82 %</a> then"
                + " <a class=\"num\" href=\"#row-calls-0\" title=\"tables/calls#0\">82 %</a> again.");
    }

    @Test
    void textIsEscapedAroundTheLinks() {
        Refs refs = new Refs(TestCases.report(TestCases.copy("row-lock-prototype-beans", tmp)));
        assertThat(NumberLinks.html("<b> 3 & 4", List.of(new Finding.NumberRef("4", "tables/calls#0")), refs))
                .isEqualTo("&lt;b&gt; 3 &amp; <a class=\"num\" href=\"#row-calls-0\" title=\"tables/calls#0\">4</a>");
    }
}
