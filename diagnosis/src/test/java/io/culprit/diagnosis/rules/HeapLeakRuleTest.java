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
        Finding f = risingFloorWith(dir, Map.of("samples", 200),
                row("site", "shop.Receipts.issue", "topClass", "byte[]", "samples", 170, "share", 0.85),
                row("site", "shop.Other.x", "topClass", "java.lang.String", "samples", 30, "share", 0.15));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("was 60 MB at its lowest in the first third of the run and 100 MB in the last", "growing 5 MB/s, 51.2 KB per request (r = 1)",
                "the 256 MB heap is full in 28.2 s", "85 % of the 200 object samples that survived the run were byte[] allocated at shop.Receipts.issue");
        assertThat(f.culprit()).isEqualTo("shop.Receipts.issue");
        assertThat(f.explains()).contains("gc-pressure");
        assertThat(f.fix()).contains("byte[] allocated at shop.Receipts.issue", "Do not size the heap up");
    }

    /** Fewer than 10 samples still reachable name a site only when most of them agree, and never without the roots' search. */
    @Test
    void aFewReachableSamplesNameASiteOnlyWhenMostAgree() {
        Finding agree = risingFloorWith(dir.resolve("few-agree"), Map.of("samples", 40, "paths", true, "rooted", 6),
                row("site", "shop.Tags.count", "topClass", "byte[]", "samples", 30, "share", 0.75, "rooted", 4),
                row("site", "shop.Other.x", "topClass", "byte[]", "samples", 10, "share", 0.25, "rooted", 2));
        assertThat(agree.culprit()).isEqualTo("shop.Tags.count");
        Finding split = risingFloorWith(dir.resolve("few-split"), Map.of("samples", 40, "paths", true, "rooted", 6),
                row("site", "shop.Tags.count", "topClass", "byte[]", "samples", 20, "share", 0.5, "rooted", 2),
                row("site", "shop.Other.x", "topClass", "byte[]", "samples", 10, "share", 0.25, "rooted", 2),
                row("site", "shop.Third.y", "topClass", "byte[]", "samples", 10, "share", 0.25, "rooted", 2));
        assertThat(split.culprit()).isEqualTo("objects kept past their request");
        Finding fewer = risingFloorWith(dir.resolve("few-fewer"), Map.of("samples", 20, "paths", true, "rooted", 4),
                row("site", "shop.Tags.count", "topClass", "byte[]", "samples", 20, "share", 1.0, "rooted", 4));
        assertThat(fewer.culprit()).as("under 5 reachable samples").isEqualTo("objects kept past their request");
        Finding unsearched = risingFloorWith(dir.resolve("few-unsearched"), Map.of("samples", 6),
                row("site", "shop.Tags.count", "topClass", "byte[]", "samples", 6, "share", 1.0));
        assertThat(unsearched.culprit()).as("survivors without the search").isEqualTo("objects kept past their request");
    }

    /**
     * The same rising floor, but JFR searched the survivors' paths to GC roots and found none: the
     * rise is promoted garbage no old collection has reached yet (a stylesheet compiled per request,
     * 15 s before G1's first concurrent cycle, read as a CRITICAL leak). With roots, the site named
     * is the one whose survivors are still held.
     */
    @Test
    void survivorsThatNoGcRootReachesAreGarbageNotALeak() {
        Finding f = risingFloorWith(dir, Map.of("samples", 111, "paths", true, "rooted", 0),
                row("site", "shop.Api.xslt", "topClass", "byte[]", "samples", 82, "share", 0.74, "rooted", 0),
                row("site", "shop.Other.x", "topClass", "byte[]", "samples", 29, "share", 0.26, "rooted", 0));
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).contains("growing 5 MB/s", "but none of the 111 object samples that survived the run is still"
                + " reachable (JFR searched each one's path to a GC root): garbage promoted to the old generation");
        assertThat(f.explains()).isEmpty();

        f = risingFloorWith(dir.resolve("b"), Map.of("samples", 200, "paths", true, "rooted", 60),
                row("site", "shop.Api.render", "topClass", "byte[]", "samples", 140, "share", 0.7, "rooted", 2),
                row("site", "shop.Receipts.issue", "topClass", "byte[]", "samples", 60, "share", 0.3, "rooted", 58));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.Receipts.issue");
        assertThat(f.summary()).contains("97 % of the 60 object samples still reachable at the end of the run were byte[] allocated at"
                + " shop.Receipts.issue");
        // Without the search (cutoff 0), unrooted samples say nothing.
        f = risingFloorWith(dir.resolve("c"), Map.of("samples", 111, "paths", false, "rooted", 0),
                row("site", "shop.Api.xslt", "topClass", "byte[]", "samples", 82, "share", 0.74, "rooted", 0));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
    }

    /** heap-leak on 60 MB growing 5 MB/s for 12 s in a 256 MB heap, with these old-objects rows. */
    @SafeVarargs
    private static Finding risingFloorWith(Path d, Map<String, Object> meta, Map<String, Object>... rows) {
        double[] after = new double[12];
        for (int i = 0; i < after.length; i++) after[i] = 60 + 5 * i;
        return new HeapLeakRule().evaluate(CaseBuilder.in(d, 12, 2)
                .series("heap", 1000, "usedAfterGcMb", after, "maxMb", flat(12, 256))
                .series("requests", 1000, "rps", flat(12, 100))
                .tableWithMeta("old-objects", meta, rows)
                .evidence());
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
        Finding f = afterGc("a", Double.NaN, 60, Double.NaN, 90, Double.NaN, 80, Double.NaN, 150);
        assertThat(f.verdict()).isEqualTo(Verdict.NOT_ASSESSED);
        assertThat(f.summary()).contains("known in 4 windows, fewer than 5, and not rising at each");
        assertThat(afterGc("b", Double.NaN, 60, Double.NaN, 90, Double.NaN, 120, Double.NaN, Double.NaN).verdict()).isEqualTo(Verdict.NOT_ASSESSED);
    }

    /**
     * A service outside the lab that collects seldom: a Micrometer timer with a percentile histogram
     * registered per session id, 500 req/s, 4 young collections in 20 s with the heap after each
     * 34, 39, 45, 51 MB. It read "not assessed: fewer than 5 windows" and no root cause.
     */
    @Test
    void fourCollectionsEachAboveTheLastAreATrend() {
        Finding f = afterGc("c", Double.NaN, 60, Double.NaN, 90, Double.NaN, 120, Double.NaN, 150);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("the heap after GC was 60 MB at its lowest in the first third of the run and 150 MB in the last");
    }

    /** heap-leak on 8 one-second windows of a 256 MB heap with {@code after} as the heap after GC (NaN: no GC). */
    private Finding afterGc(String caseName, double... after) {
        return new HeapLeakRule().evaluate(CaseBuilder.in(dir.resolve(caseName), 8, 2)
                .series("heap", 1000, "usedAfterGcMb", after, "maxMb", flat(8, 256)).evidence());
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

    /**
     * Recorded by culprit diagnose on a service outside the lab that tags a Micrometer timer (with a
     * percentile histogram) by a session id new with each request. JFR's samples are allocated in
     * Micrometer's histograms; the code to change is the application's method that registers them.
     */
    @Test
    void aMeterPerTagValueNamesTheApplicationCodeAndMicrometersCure() {
        Finding f = new HeapLeakRule().evaluate(Fixtures.evidence("outside-micrometer-tag-leak"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Quotes.quote");
        assertThat(f.summary()).contains("of the 211 object samples still reachable at the end of the run were allocated under"
                + " blind.App$Quotes.quote (the most, 58 %, long[] allocated at io.micrometer.core.instrument.distribution.FixedBoundaryHistogram.<init>)");
        assertThat(f.fix()).startsWith("Tag meters with a bounded set of values").contains("MeterFilter.maximumAllowableTags");
        assertThat(new HeapLeakRule().evaluate(Fixtures.evidence("outside-micrometer-tag-leak-fixed")).isProblem()).isFalse();
        // On Temurin 25 the same 20 s held three collections: not a trend, but the held samples say where to look.
        Finding few = new HeapLeakRule().evaluate(Fixtures.evidence("outside-micrometer-tag-leak-jdk25"));
        assertThat(few.severity()).isEqualTo(Severity.INFO);
        assertThat(few.culprit()).isEqualTo("blind.App$Quotes.quote");
        assertThat(few.summary()).startsWith("the heap after GC is known in 3 windows, fewer than 5, rising at each (36.5 to 48.4 MB)")
                .contains("diagnose longer (--duration 60s)");
    }
}
