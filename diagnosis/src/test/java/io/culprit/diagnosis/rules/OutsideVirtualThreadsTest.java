package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        assertThat(f.summary()).contains("pool has 10 (98 % utilised), 24 threads pending",
                "; requests spent 64 % of their time getting a connection; the container runs requests on virtual threads;"
                + " the connections are busy with sql \"select pg_sleep(?)::text as slept, now()::text as at\", 6.1 ms each,"
                + " 9.1 running on average (Little's Law).");
        assertThat(f.explanation()).contains("the pool took over the role of the worker pool's maximum");
        assertThat(f.fix()).contains("a Semaphore around the data access");
    }

    @Test
    void aQueueThatNeverEmptiesIsStarvationThoughItCannotTrackTheTail() {
        Finding f = new PoolStarvationRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("requests spent 64 % of their time getting one", "does not track P99");
    }

    /** Session 24 noticed it NOT_ASSESSED ("needs series pools#containerBusy …") with no word of why. */
    @Test
    void aContainerOnVirtualThreadsHasNoWorkerPoolToQueueFor() {
        Finding f = new ContainerQueueRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.verdict().name()).isEqualTo("RULED_OUT");
        assertThat(f.summary()).isEqualTo("the container runs each request on a virtual thread of its own: no worker pool to queue for.");
    }

    @Test
    void neitherALeakNorARowLockIsReadIntoIt() {
        assertThat(new HeapLeakRule().evaluate(ev).severity()).isEqualTo(Severity.OK);
        assertThat(new DbRowLockRule().evaluate(ev).severity()).isEqualTo(Severity.OK);
    }

    /**
     * The same service's {@code /doc}: an ObjectMapper that registers its modules (a service-loader
     * scan) and a SimpleDateFormat, each kept in {@code ThreadLocal.withInitial} for a pool of
     * platform threads that is gone. It read as lookups with the fix for XML factories.
     */
    @Test
    void aPerThreadCacheIsNamedAsBuiltForEveryRequestOnItsVirtualThread() {
        Finding f = new ClassLoadingRule().evaluate(Fixtures.evidence("outside-virtual-thread-cache"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind.Api.lambda$static$0");
        assertThat(f.summary()).contains("most asked for by com.fasterxml.jackson.databind.ObjectMapper.findModules; 95 % of it"
                + " runs in a ThreadLocal's initial value (blind.Api.lambda$static$0), asked for by blind.Api.doc, built anew"
                + " for every request on its virtual thread.");
        assertThat(f.explanation()).contains("a virtual thread's ThreadLocals live only as long as it does");
        assertThat(f.fix()).startsWith("Drop the per-thread cache");
    }

    /** The same recording without the container's virtual threads: the ThreadLocal is a cache again. */
    @Test
    void onPlatformThreadsAPerThreadCacheIsNotBlamed(@TempDir Path tmp) throws Exception {
        Path dir = Fixtures.copy("outside-virtual-thread-cache", tmp.resolve("case"));
        Path pools = dir.resolve("series/pools.json");
        Files.writeString(pools, Files.readString(pools).replace("\"containerVirtual\"", "\"containerVirtualNot\""));
        Finding f = new ClassLoadingRule().evaluate(new Evidence(CaseFile.open(dir)));
        assertThat(f.culprit()).isEqualTo("com.fasterxml.jackson.databind.ObjectMapper.findModules");
        assertThat(f.summary()).doesNotContain("ThreadLocal");
        assertThat(f.fix()).startsWith("Build the factory once");
    }

    /**
     * The same service's {@code /quote}: a 20 ms partner called inside {@code synchronized}. On
     * JDK 25 the blocked virtual threads unmount and JFR records none of their waits; before the
     * agent sampled thread dumps the verdict was "no root cause found".
     */
    @Test
    void virtualThreadsQueuedOnAMonitorAreNamedFromThreadDumpsWithTheCallHeldAcross() {
        Evidence quote = Fixtures.evidence("outside-virtual-thread-monitor");
        assertThat(LockContentionRule.lockTable(quote)).isEqualTo("vthread-locks");
        Finding f = new LockContentionRule().evaluate(quote);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Api.quote:59");
        assertThat(f.summary()).startsWith("virtual threads spent about 102 s blocked (79 % of request time) on java.lang.Object"
                + " (monitor, 102 blocked threads in thread dumps a second apart), held at blind.Api.quote:59")
                .endsWith("; the lock is held across its holder's http \"GET http://127.0.0.1:18111/quote\" (634 calls, 23.2 ms each).");
        assertThat(f.explanation()).contains("JFR records none of these waits");
        assertThat(f.confirm()).startsWith("jcmd ").contains("Thread.dump_to_file -format=json");
    }
}
