package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * A Spring Boot service on virtual threads, written outside the lab (session 24) and recorded by
 * {@code culprit diagnose} on JDK 25: every request runs a 5 ms query through HikariCP's 10
 * connections, and with no worker pool in front, 32 clients means 22 requests queued at the pool.
 * Before, the agent kept a 4 KB ring per virtual thread (read as heap-leak CRITICAL) and the
 * driver's {@code flushIfDeadlockRisk} passed for a lock frame (db-row-lock CRITICAL).
 */
class OutsideVirtualThreadsTest {

    private final Evidence ev = Fixtures.evidence("outside-virtual-thread-pool");

    @Test
    void thePoolIsNamedAsTheQueueVirtualThreadsNoLongerCap() {
        Finding f = new PoolSizeRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("pool has 10 (112 % utilised), 24 threads pending",
                "; requests spent 64 % of their time getting a connection; the container runs requests on virtual threads.");
        assertThat(f.explanation()).contains("the pool took over the role of the worker pool's maximum");
        assertThat(f.fix()).contains("a Semaphore around the data access");
    }

    @Test
    void aQueueThatNeverEmptiesIsStarvationThoughItCannotTrackTheTail() {
        Finding f = new PoolStarvationRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("requests spent 64 % of their time getting one", "does not track P99");
    }

    @Test
    void neitherALeakNorARowLockIsReadIntoIt() {
        assertThat(new HeapLeakRule().evaluate(ev).severity()).isEqualTo(Severity.OK);
        assertThat(new DbRowLockRule().evaluate(ev).severity()).isEqualTo(Severity.OK);
    }
}
