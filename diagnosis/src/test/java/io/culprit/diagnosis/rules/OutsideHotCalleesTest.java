package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import org.junit.jupiter.api.Test;

/**
 * Session 38's service outside the lab, written blind: CPU faults in the JDK's own APIs, each
 * with a cure of its own that the hot method's frames show. Before: cryptography with advice about
 * RSA for Cipher lookups, "searching a list" for LinkedList.get(i), sorting without the boxes, and
 * lock-contention with "make the call before taking the lock" for a lock AWT takes inside
 * getScaledInstance. Each fixed twin still computes (the encryption, the matching, the sort), and
 * must not be told the faulty twin's cure.
 */
class OutsideHotCalleesTest {

    private static Finding top(String fixture) {
        return Diagnosis.run(CaseFile.open(Fixtures.dir(fixture))).top().orElseThrow();
    }

    @Test
    void aCipherAndMacLookedUpPerTokenAreNamedAsLookupsNotAsCryptography() {
        Finding f = top("outside-cipher-per-token");
        assertThat(f.summary()).contains("of it is looking up a cipher, MAC, digest or signature in the security providers");
        assertThat(f.fix()).startsWith("Cipher.getInstance, Mac.getInstance").contains("keep one per thread");
        Finding fixed = top("outside-cipher-per-token-fixed");
        assertThat(fixed.summary()).contains("cryptography").doesNotContain("security providers");
    }

    @Test
    void aLinkedListReadByIndexIsNamedSo() {
        Finding f = top("outside-linked-list-index");
        assertThat(f.culprit()).isEqualTo("com.acme.storefront.metrics.MovingAverageCalculator.movingAverage");
        assertThat(f.summary()).contains("indexing a LinkedList").doesNotContain("searching a list");
        assertThat(f.fix()).startsWith("LinkedList.get(i) and set(i, x) walk the list");
    }

    @Test
    void regularExpressionsCompiledPerCallLeadWithCompilingOnce() {
        Finding f = top("outside-string-regex-per-row");
        assertThat(f.summary()).containsPattern("; \\d+ % of it compiles the patterns again \\(Pattern.compile\\)");
        assertThat(f.fix()).startsWith("Compile each pattern once into a static final Pattern");
        Finding fixed = top("outside-string-regex-per-row-fixed");
        assertThat(fixed.summary()).contains("java.util.regex").doesNotContain("compiles the patterns");
        assertThat(fixed.fix()).startsWith("Regular expressions run on every request.");
    }

    @Test
    void boxedNumbersSortedPerCallAreToldToSortAPrimitiveArray() {
        Finding f = top("outside-boxed-stream-sort");
        assertThat(f.summary()).contains("is sorting, of boxed numbers");
        assertThat(f.fix()).startsWith("Sort the numbers as a primitive array (Arrays.sort(double[])");
        Finding fixed = top("outside-boxed-stream-sort-fixed");
        assertThat(fixed.summary()).contains("sorting").doesNotContain("boxed");
    }

    @Test
    void getScaledInstanceIsTheCauseOfTheLockAwtTakesInsideIt() {
        Diagnosis.Result r = Diagnosis.run(CaseFile.open(Fixtures.dir("outside-scaled-instance-thumbnail")));
        Finding f = r.top().orElseThrow();
        assertThat(f.id()).isEqualTo("cpu-hotspot");
        assertThat(f.summary()).contains("AWT's image-producer pipeline (Image.getScaledInstance)")
                .contains("the lock requests contend on most (sun.awt.image.OffScreenImageSource) is taken inside it");
        assertThat(f.fix()).contains("Never use it on a server");
        assertThat(r.chain()).extracting(Finding::id).containsExactly("cpu-hotspot", "lock-contention");
    }
}
