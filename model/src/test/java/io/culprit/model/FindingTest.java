package io.culprit.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FindingTest {

    @Test
    void builderDefaultsVerdictFromSeverityAndClampsScore() {
        Finding ok = Finding.builder("gc-pressure", "GC").summary("GC paused 0.3 %").build();
        assertThat(ok.verdict()).isEqualTo(Verdict.RULED_OUT);
        Finding warn = Finding.builder("locks", "Locks").severity(Severity.WARN).score(3).explains("tail").explains("tail").build();
        assertThat(warn.verdict()).isEqualTo(Verdict.CONTRIBUTING);
        assertThat(warn.score()).isEqualTo(1.0);
        assertThat(warn.explains()).containsExactly("tail");
        assertThat(warn.isProblem()).isTrue();
        assertThat(warn.withVerdict(Verdict.CONFIRMED).verdict()).isEqualTo(Verdict.CONFIRMED);
    }

    @Test
    void culpritRoundTripsAndTheFirstConstructorStillWorks(@TempDir Path dir) throws Exception {
        CaseFile cf = CaseFile.create(dir);
        cf.write(CaseInfo.of("diagnose", 0, 1000, "x", Map.of()));
        Finding legacy = new Finding("a", "A", Severity.OK, 0, Verdict.RULED_OUT, "s", null, null, null, null, null);
        Finding named = Finding.builder("b", "B").severity(Severity.CRITICAL).culprit("x.Y.z:12").summary("s").build();
        cf.writeFindings(List.of(named, legacy));
        List<Finding> back = CaseFile.open(dir).findings();
        assertThat(back.get(0).culprit()).isEqualTo("x.Y.z:12");
        assertThat(back.get(1).culprit()).isNull();
        String json = Files.readString(dir.resolve("findings.json"));
        assertThat(json).doesNotContain("\"problem\"");
    }

    @Test
    void numbersRoundTripAndAreOmittedWhenNone(@TempDir Path dir) throws Exception {
        CaseFile cf = CaseFile.create(dir);
        cf.write(CaseInfo.of("diagnose", 0, 1000, "x", Map.of()));
        Finding tagged = Finding.builder("gc-pressure", "GC").severity(Severity.WARN).summary("GC paused 12 % of wall time")
                .number("12 %", "series/gc#pauseSumMs").build();
        Finding plain = Finding.builder("locks", "Locks").summary("no lock contention recorded.").build();
        cf.writeFindings(List.of(tagged, plain));
        String json = Files.readString(dir.resolve("findings.json"));
        assertThat(json).containsOnlyOnce("\"numbers\"").contains("\"ref\" : \"series/gc#pauseSumMs\"");
        List<Finding> back = CaseFile.open(dir).findings();
        assertThat(back.get(0).numbers()).containsExactly(new Finding.NumberRef("12 %", "series/gc#pauseSumMs"));
        assertThat(back.get(0).withVerdict(Verdict.CONFIRMED).numbers()).isEqualTo(back.get(0).numbers());
        assertThat(back.get(1).numbers()).isEmpty();
    }

    @Test
    void findingsWrittenBeforeNumbersExistedStillRead(@TempDir Path dir) throws Exception {
        CaseFile cf = CaseFile.create(dir);
        cf.write(CaseInfo.of("diagnose", 0, 1000, "x", Map.of()));
        Files.writeString(dir.resolve("findings.json"), "[{\"id\":\"a\",\"title\":\"A\",\"severity\":\"WARN\",\"score\":0.5,"
                + "\"verdict\":\"CONFIRMED\",\"summary\":\"s 3 ms\",\"evidence\":[\"series/gc#pauseSumMs\"],\"explains\":[]}]");
        Finding old = CaseFile.open(dir).findings().get(0);
        assertThat(old.numbers()).isEmpty();
        assertThat(old.evidence()).containsExactly("series/gc#pauseSumMs");
    }

    @Test
    void unmeasuredWindowsSurviveAsNaN(@TempDir Path dir) {
        CaseFile cf = CaseFile.create(dir);
        cf.write(CaseInfo.of("diagnose", 0, 2000, "x", Map.of()));
        cf.write(Series.builder("requests", 1000).row(0, Map.of("p50Ms", Double.NaN)).row(1000, Map.of("p50Ms", 3.0)).build());
        double[] back = CaseFile.open(dir).series("requests").orElseThrow().column("p50Ms").orElseThrow();
        assertThat(back[0]).isNaN();
        assertThat(back[1]).isEqualTo(3.0);
    }
}
