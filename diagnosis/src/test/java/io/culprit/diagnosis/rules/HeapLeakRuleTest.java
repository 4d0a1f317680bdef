package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.flat;
import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** heap-leak: a floor of the heap after GC that climbs, against sawtooths, drift and too few collections. */
class HeapLeakRuleTest {
    @TempDir Path dir;

    /** 60 MB growing 5 MB/s for 12 s in a 256 MB heap, with a dominant site among the surviving samples. */
    @Test
    void aSteadilyRisingFloorIsALeakNamingTheSiteOfTheSurvivors() {
        double[] after = new double[12];
        for (int i = 0; i < after.length; i++) after[i] = 60 + 5 * i;
        Finding f = new HeapLeakRule().evaluate(CaseBuilder.in(dir, 12, 2)
                .series("heap", 1000, "usedAfterGcMb", after, "maxMb", flat(12, 256))
                .series("requests", 1000, "rps", flat(12, 100))
                .tableWithMeta("old-objects", Map.of("samples", 200),
                        row("site", "shop.Receipts.issue", "topClass", "byte[]", "samples", 170, "share", 0.85),
                        row("site", "shop.Other.x", "topClass", "java.lang.String", "samples", 30, "share", 0.15))
                .evidence());
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("was 60 MB at its lowest in the first third of the run and 100 MB in the last", "growing 5 MB/s, 51.2 KB per request (r = 1)",
                "the 256 MB heap is full in 28.2 s", "85 % of the 200 object samples that survived the run were byte[] allocated at shop.Receipts.issue");
        assertThat(f.culprit()).isEqualTo("shop.Receipts.issue");
        assertThat(f.explains()).contains("gc-pressure");
        assertThat(f.fix()).contains("byte[] allocated at shop.Receipts.issue", "Do not size the heap up");
    }

    /** Growth that is small against a big heap is not told from drift; a slow leak watched for 5 min is a warning. */
    @Test
    void aLeakFarFromFillingTheHeapIsAWarning() {
        double[] after = new double[20];
        for (int i = 0; i < after.length; i++) after[i] = 500 + 25 * i;
        Finding f = new HeapLeakRule().evaluate(CaseBuilder.in(dir, 20, 2)
                .series("heap", 1000, "usedAfterGcMb", after, "maxMb", flat(20, 32768)).evidence());
        // 350 MB over the run is 1 % of 32 GB.
        assertThat(f.severity()).as(f.summary()).isEqualTo(Severity.OK);
        after = new double[300];
        for (int i = 0; i < after.length; i++) after[i] = 500 + 1.5 * i;
        f = new HeapLeakRule().evaluate(CaseBuilder.in(dir.resolve("b"), 300, 2)
                .series("heap", 1000, "usedAfterGcMb", after, "maxMb", flat(300, 4096)).evidence());
        assertThat(f.severity()).as(f.summary()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).contains("full in 35.0 min");
        assertThat(f.culprit()).isEqualTo("objects kept past their request");
    }

    /** Young collections promote garbage until an old collection takes it back: the floor does not rise. */
    @Test
    void aSawtoothBackToTheSameFloorIsNoLeak() {
        double[] after = {60, 80, 100, 120, 60, 80, 100, 120, 62, 82, 102, 122};
        Finding f = new HeapLeakRule().evaluate(CaseBuilder.in(dir, 12, 2)
                .series("heap", 1000, "usedAfterGcMb", after, "maxMb", flat(12, 256)).evidence());
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).startsWith("the heap after GC was 60 MB at its lowest in the first third of the run and 62 MB in the last").endsWith("the live set is not growing.");
    }

    @Test
    void tooFewCollectionsAreNotAssessed() {
        double[] after = {Double.NaN, 60, Double.NaN, 90, Double.NaN, 120, Double.NaN, 150};
        Finding f = new HeapLeakRule().evaluate(CaseBuilder.in(dir, 8, 2)
                .series("heap", 1000, "usedAfterGcMb", after, "maxMb", flat(8, 256)).evidence());
        assertThat(f.verdict()).isEqualTo(Verdict.NOT_ASSESSED);
        assertThat(f.summary()).contains("known in 4 windows, fewer than 5");
    }

    /** Recorded by ./culprit demo receipt-leak: 100 req/s, each leaving a 47,880-byte receipt reachable. */
    @Test
    void theLabsReceiptLeakIsCriticalAndNamesTheAllocatingMethod() {
        Finding f = new HeapLeakRule().evaluate(Fixtures.evidence("receipt-leak"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("68.9 MB at its lowest in the first third of the run and 102 MB in the last",
                "growing 4.9 MB/s, 50.5 KB per request (r = 1.0)", "the 256 MB heap is full in 28.9 s",
                "99 % of the 242 object samples that survived the run were byte[] allocated at io.culprit.lab.orders.Receipts.issue");
        assertThat(f.culprit()).isEqualTo("io.culprit.lab.orders.Receipts.issue");
    }

    /** A small heap full of a stable live set is GC pressure, not a leak; a bounded archive is none. */
    @Test
    void theRecordedGcCasesAreNoLeak() {
        for (String c : new String[] {"gc-pool-starvation", "gc-pool-starvation-fixed", "healthy", "receipt-leak-fixed"}) {
            Finding f = new HeapLeakRule().evaluate(Fixtures.evidence(c));
            assertThat(f.severity()).as(c + ": " + f.summary()).isEqualTo(Severity.OK);
        }
    }
}
