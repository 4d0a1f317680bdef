package io.culprit.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaseDiffTest {
    @TempDir Path tmp;

    @Test
    void fixedTwinResolvesTheRootCauseAndImprovesTheTail() {
        CaseFile before = TestCases.copy("gc-pool-starvation", tmp), after = TestCases.copy("gc-pool-starvation-fixed", tmp);
        CaseDiff d = CaseDiff.of(before, TestCases.diagnose(before), after, TestCases.diagnose(after));

        assertThat(d.resolved()).extracting(CaseDiff.Change::id).contains("gc-pressure", "pool-starvation");
        assertThat(d.appeared()).extracting(CaseDiff.Change::id).doesNotContain("gc-pressure");
        CaseDiff.Metric pause = metric(d, "GC pause sum ms");
        assertThat(pause.before()).isGreaterThan(10 * pause.after());
        assertThat(pause.improved()).isTrue();
        assertThat(metric(d, "p99 ms (worst window)").improved()).isTrue();
        assertThat(metric(d, "rps (mean)").lowerIsBetter()).isFalse();

        String text = DiffRenderer.text(d);
        assertThat(text).containsSubsequence("GC pause sum ms", "better", "Resolved (", "gc-pressure");
        assertThat(DiffRenderer.markdown(d)).contains("| GC pause sum ms | 2,336 | 36 | -98% | better |");
    }

    @Test
    void differentialFlameNeedsBothCpuProfiles() {
        CaseFile before = TestCases.copy("converter-rebuild", tmp), after = TestCases.copy("converter-rebuild-fixed", tmp);
        assertThat(CaseDiff.of(before, TestCases.diagnose(before), after, TestCases.diagnose(after)).flame()).isNull();

        TestCases.profile(before, "cpu.collapsed", "cpu.collapsed");
        TestCases.profile(after, "cpu-fixed.collapsed", "cpu.collapsed");
        CaseDiff d = CaseDiff.of(before, TestCases.diagnose(before), after, TestCases.diagnose(after));

        assertThat(d.flame()).isNotNull();
        assertThat(d.flame().samples()).isEqualTo(590);
        // The converter rebuild was 68 % of the before profile and is gone after: the top mover.
        assertThat(DiffRenderer.markdown(d)).containsSubsequence("frames whose share moved most",
                "`com.example.config.MapperConfig.lambda$converters$0` | 68.0% | 0.0% |");
        TestCases.has(DiffRenderer.html(d), "id=\"flame-cpu-diff\"", "\"b\":");
    }

    private static CaseDiff.Metric metric(CaseDiff d, String name) {
        return d.metrics().stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
    }
}
