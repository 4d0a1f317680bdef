package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 35's service outside the lab (Spring Boot 3.5.7, PostgreSQL): two endpoints whose first
 * verdicts pointed at the wrong code.
 */
class OutsideWritersAndCountersTest {

    /**
     * Readers wait on a ReentrantReadWriteLock's read lock, which waits only for a writer: the
     * statement to blame is the writer's (a 40 ms reload every 200 ms), not the readers' own 1 ms one.
     */
    @Test
    void readersQueuedBehindAWriterNameTheWritersCall() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-rwlock-writer-reload"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("b8.App$PriceList.reload:123");
        assertThat(f.summary()).contains("makes sql \"select avg(price)::float8 / ? from quotes where sku < ?\" (82 calls")
                .contains("the waiters want the read lock, which waits only for a writer")
                .doesNotContain("select price::float8 from quotes where id");
    }

    /**
     * A counter per customer id: small objects leaking at ~10,000 req/s are few of what JFR
     * samples, and the leak watch starts late; 5 samples still reachable, 4 under the handler.
     */
    @Test
    void aFewReachableSamplesThatAgreeNameTheLeakingHandler() {
        Finding f = new HeapLeakRule().evaluate(Fixtures.evidence("outside-micrometer-counter-per-id"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("b8.App$Orders.order");
        assertThat(f.summary()).contains("of the 5 object samples still reachable at the end of the run were allocated under b8.App$Orders.order");
        assertThat(f.fix()).startsWith("Tag meters with a bounded set of values");
    }

    /**
     * The fixed twin's only SQL is a scheduled reload (P99 ~240 ms): no request's wait, so neither
     * a slow call of the requests nor Little's Law over their rate.
     */
    @Test
    void aScheduledTasksSqlIsNoRequestsSlowCallAndSizesNoPool() {
        var ev = Fixtures.evidence("outside-micrometer-counter-per-id-fixed");
        Finding slow = new SlowCallsRule().evaluate(ev);
        assertThat(slow.isProblem()).isFalse();
        assertThat(slow.summary()).startsWith("no dependency call of a request over its threshold")
                .contains("a scheduled task's sql \"select avg(price)::float8 / ? from quotes where sku < ?\" is over it outside any request");
        assertThat(new PoolSizeRule().evaluate(ev).summary()).startsWith("the requests made no SQL call");
    }
}
