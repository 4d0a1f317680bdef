package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * The third round of session 33's service outside the lab: a BLPOP on Lettuce's one shared
 * connection (named, with "make the call cheaper"), a Semaphore whose release an exception skips
 * (read as a bulkhead to size), ZGC on a 96 MB heap (read "no root cause found": its pauses are
 * microseconds; its threads stall in allocation instead), and a @Cacheable whose key object has no
 * equals (named, with the cure for a cache too small).
 */
class OutsideStallsAndLeaksTest {

    @Test
    void aBlockingPopOnASharedConnectionGetsItsOwnCure() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-lettuce-blocking-pop"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("b5.Seven.nextJob:26");
        assertThat(f.fix()).startsWith("BLPOP waits on the server until an element arrives").contains("connections of their own");
    }

    @Test
    void permitsNobodyGivesBackAreALeakNotATooSmallBulkhead() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-semaphore-leak"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("b5.Seven.quote:34");
        assertThat(f.summary()).endsWith("; 100 % of the requests failed and no holder was seen at work: the permits were taken"
                + " and never given back.");
        assertThat(f.fix()).startsWith("Release in a finally block");
        assertThat(f.explanation()).startsWith("A Semaphore counts permits, not owners");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-semaphore-leak-fixed")).isProblem()).isFalse();
    }

    @Test
    void zgcThreadsStallingInAllocationAreTheCauseThoughItsPausesAreNothing() {
        var ev = Fixtures.evidence("outside-zgc-small-heap");
        assertThat(new GcPressureRule().evaluate(ev).isProblem()).isFalse();
        Finding f = new AllocationStallRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("3,593 allocation stalls, 246 s of threads waiting to allocate (100 % of request time);"
                + " the collector ran 11 cycles a second, its concurrent phases 82 % of the time; the heap's maximum is 96 MB:"
                + " requests wait for the collector to free memory as fast as they allocate it.");
        assertThat(f.fix()).contains("-Xmx two to three times the live set", "ZGenerational");
        // 512 MB stalls less, but on two shared cores still for 42 % of request time.
        assertThat(new AllocationStallRule().evaluate(Fixtures.evidence("outside-zgc-small-heap-fixed")).summary())
                .startsWith("1,963 allocation stalls, 80.3 s of threads waiting to allocate (42 % of request time)");
    }

    @Test
    void missesOfACacheThatNeverEvictsAreItsKey() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-cache-key-without-equals"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("b5.Eight.rate");
        assertThat(f.summary()).endsWith("yet it is Spring's ConcurrentMapCache, which neither bounds nor expires entries: the key"
                + " differs on every call.");
        assertThat(f.fix()).startsWith("Make the key the values that identify the result").contains("equals and hashCode");
        assertThat(new CacheMissesRule().evaluate(Fixtures.evidence("outside-cache-key-without-equals-fixed")).isProblem()).isFalse();
    }

    @Test
    void aCaseRecordedBeforeStallsWereCollectedIsNotAssessed() {
        assertThat(new AllocationStallRule().evaluate(Fixtures.evidence("healthy")).verdict().name()).isEqualTo("NOT_ASSESSED");
    }
}
