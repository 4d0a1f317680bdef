package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * The second service outside the lab of session 33 (the same Spring Boot 3.5.7 service, new
 * endpoints): accessors looked up with Class.getMethod per object and property, a sort whose
 * comparator normalizes both names at every comparison (named at the key function with the
 * regex's cure), a cached total that every request finding it expired recomputes (read "index the
 * filtered column"), and a JVM started with -Xmn16m (read "-Xms equal to -Xmx"). Each was named at
 * the right place with a generic or wrong cure before.
 */
class OutsideHerdsAndLookupsTest {

    @Test
    void accessorsLookedUpPerPropertyGetTheLookupsCure() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-reflective-copy"));
        assertThat(f.culprit()).isEqualTo("b5.More.copy");
        assertThat(f.summary()).contains("in its call to java.lang.Class.getMethod",
                "that is looking methods or fields up by name (Class.getMethod and its kin)");
        assertThat(f.fix()).contains("Look each Method, Field or Constructor up once", "MapStruct");
        assertThat(new CpuHotspotRule().evaluate(Fixtures.evidence("outside-reflective-copy-fixed")).isProblem()).isFalse();
    }

    @Test
    void aKeyComputedInTheComparatorIsNamedAsSuch() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-sort-key-per-compare"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("b5.More.folded");
        assertThat(f.summary()).contains("of it is computing a sort key inside the comparator");
        assertThat(f.fix()).startsWith("The comparator computes each element's sort key on every comparison");
        // Computed once per item, the same key function is only its regex: that kind's cure.
        Finding fixed = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-sort-key-per-compare-fixed"));
        assertThat(fixed.summary()).doesNotContain("sort key").contains("java.util.regex");
    }

    @Test
    void theSortKeyShapeNeedsASortAboveTheKey() {
        String[] sorted = ("b5.More.ranking;java.util.TimSort.mergeLo;java.util.Comparator$$Lambda$148.0x1.compare;"
                + "java.util.Comparator.lambda$comparing$77a9974f$1;b5.More$$Lambda$1089.0x2.apply;b5.More.lambda$ranking$0;"
                + "b5.More.folded;java.lang.String.replaceAll").split(";");
        assertThat(HotCallee.sortKey(sorted, 6)).isTrue();
        String[] plain = "b5.More.ranking;b5.More.lambda$ranking$0;b5.More.folded;java.lang.String.replaceAll".split(";");
        assertThat(HotCallee.sortKey(plain, 2)).isFalse();
    }

    @Test
    void aRareCallManyAtATimeIsAStampede() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-cache-stampede"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).endsWith("; it runs once per 663 requests, but 4.2 at a time on average: the requests that find a"
                + " cached result expired all compute it again at once (a cache stampede), and wait for each other at the dependency.");
        assertThat(f.fix()).startsWith("Let one caller recompute the value while the others keep serving the one they have");
        assertThat(new SlowCallsRule().evaluate(Fixtures.evidence("outside-cache-stampede-fixed")).isProblem()).isFalse();
    }

    @Test
    void aYoungGenerationPinnedByFlagIsTheFlag() {
        Finding f = new GcPressureRule().evaluate(Fixtures.evidence("outside-young-gen-flag"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("the JVM's flags: -Xmn16m");
        assertThat(f.summary()).startsWith("the young generation is sized by -Xmn16m and collected 89 times a second");
        assertThat(f.fix()).startsWith("Remove -Xmn16m").contains("MaxGCPauseMillis");
        assertThat(YoungGenFlag.flag("-Xmx1g -XX:NewSize=64m -XX:+UseG1GC")).isEqualTo("-XX:NewSize=64m");
        assertThat(YoungGenFlag.flag("-Xmx1g -Xms1g")).isNull();
        assertThat(new GcPressureRule().evaluate(Fixtures.evidence("outside-young-gen-flag-fixed")).isProblem()).isFalse();
    }
}
