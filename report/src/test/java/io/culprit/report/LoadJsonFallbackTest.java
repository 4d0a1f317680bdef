package io.culprit.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A case with load.json and no series/requests.json still has its window table and latency chart. */
class LoadJsonFallbackTest {
    @Test
    void windowsAndLatencyComeFromLoadJson(@TempDir Path tmp) throws Exception {
        CaseFile cf = TestCases.copy("healthy", tmp);
        Files.delete(cf.dir().resolve("series/requests.json"));
        Files.writeString(cf.dir().resolve("load.json"), """
                {"format": "culprit-load", "version": 1, "plan": {"window_ms": 15000},
                 "windows": [
                   {"start_epoch_ms": 1763798400000, "achieved_rps": 200.0, "target_rps": 200, "errors": 0,
                    "latency_ms": {"p50": 4.0, "p90": 9.0, "p99": 31.5, "max": 40.0, "mean": 5.0}},
                   {"start_epoch_ms": 1763798415000, "achieved_rps": 199.0, "target_rps": 200, "errors": 2,
                    "latency_ms": {"p50": 4.2, "p90": 9.5, "p99": 612.0, "max": 700.0, "mean": 6.0}}]}
                """);
        Report r = ReportBuilder.build(cf, List.of());

        assertThat(r.windows().rows()).hasSize(2);
        assertThat(r.windows().columns()).contains("p99Ms");
        assertThat(r.windows().rows().get(1)[r.windows().columns().indexOf("p99Ms")]).isEqualTo(612.0);
        Report.Chart latency = r.charts().stream().filter(c -> c.id().equals("latency")).findFirst().orElseThrow();
        assertThat(latency.lines()).extracting(Report.Line::ref).contains("series/requests#p99Ms");
        assertThat(MarkdownReport.render(r)).contains("| 08:00:15 | 199 | 200 | 4.20 | 9.50 | 612 | 700 | 2 |");
    }
}
