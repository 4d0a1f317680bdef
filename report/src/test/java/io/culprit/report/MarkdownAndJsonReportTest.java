package io.culprit.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.culprit.model.CaseFile;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MarkdownAndJsonReportTest {
    @TempDir Path tmp;

    @Test
    void markdownCarriesVerdictWindowsChartStatsAndHotPaths() {
        CaseFile cf = TestCases.copy("converter-rebuild", tmp);
        TestCases.profile(cf, "cpu.collapsed", "cpu.collapsed");
        String md = MarkdownReport.render(TestCases.report(cf));

        TestCases.hasInOrder(md, "## Verdict", "**#1 root cause", "repeated-construction", "## Hypotheses, ranked",
                "## Per window", "## Over time", "## Flame graph cpu", "## ");
        // The widest leaf of the test profile: 420 of 1,000 samples.
        TestCases.has(md, "| 42.0% | 420 | `com.fasterxml.jackson.databind.ObjectMapper.<init>` |");
        TestCases.has(md, "`series/requests#p99Ms`");
    }

    @Test
    void jsonIsTheSameContent() throws Exception {
        CaseFile cf = TestCases.copy("gc-pool-starvation", tmp);
        Report r = TestCases.report(cf);
        JsonNode j = CaseFile.json().readTree(JsonReport.render(r));

        assertThat(j.at("/verdict/top/id").asText()).isEqualTo("gc-pressure");
        assertThat(j.at("/verdict/chain/0").asText()).isEqualTo("gc-pressure");
        assertThat(j.at("/verdict/chain/1").asText()).isEqualTo("pool-starvation");
        assertThat(j.get("findings").size()).isEqualTo(r.findings().size());
        assertThat(j.get("charts").size()).isEqualTo(r.charts().size()).isGreaterThanOrEqualTo(8);
        assertThat(j.at("/windows/rows").size()).isEqualTo(12);
    }
}
