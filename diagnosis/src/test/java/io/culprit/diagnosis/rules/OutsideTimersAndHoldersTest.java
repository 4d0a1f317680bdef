package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Services written outside the lab in session 31 (Spring Boot 3.5.7, recorded by {@code culprit
 * diagnose} with 16 connections): a line protocol written in two small writes with Nagle's
 * algorithm on, a compressor with a finalize() made per request, audit lines through a
 * java.util.logging FileHandler, a token refreshed over HTTP inside a ReentrantLock, a Caffeine
 * cache smaller than its keys, a result read through a cursor ten rows at a time, an export
 * written a value per system call, a template read from the application's jar per request, and a
 * JPA import that looks each item up before saving it. Before, the first got the cure for a slow
 * dependency, the second "-Xms equal to -Xmx", the third and fourth the cure for a lock in one's
 * own code, the fifth and the seventh "no root cause found", the sixth a pool too small, the
 * eighth the jar's lock with the loader as culprit, the last the inserts' batching. Two more, an
 * ArrayList drained as a queue and a formatter built per call, were named at the right method
 * with the generic cure for computation.
 */
class OutsideTimersAndHoldersTest {

    @Test
    void socketWaitsPinnedAtTheDelayedAckTimerAreNamedAsNagle() {
        Finding f = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-nagle-write-write-read"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Quotes.readLine");
        assertThat(f.summary()).endsWith("; no wait was shorter than 39.8 ms and they average 43.9 ms: the 40 ms delayed-ACK timer"
                + " of Linux's TCP, the stall of a message sent in two small writes while Nagle's algorithm is on.");
        assertThat(f.fix()).startsWith("Send each message in one write").contains("setTcpNoDelay(true)");
    }

    @Test
    void oneWriteLeavesNoWait() {
        assertThat(new RequestWaitsRule().evaluate(Fixtures.evidence("outside-nagle-write-write-read-fixed")).isProblem()).isFalse();
    }

    @Test
    void finalizableObjectsPerRequestAreWhatTheCollectionsAreFor() {
        Finding f = new GcPressureRule().evaluate(Fixtures.evidence("outside-finalizer-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Reports$LegacyCompressor.finalize");
        assertThat(f.summary()).startsWith("collections found 111,544 unreachable objects with a finalize() method (JFR's final"
                + " references), 2.0 per request, finalized by blind.App$Reports$LegacyCompressor.finalize: each survives");
        assertThat(f.fix()).startsWith("Remove finalize() from blind.App$Reports$LegacyCompressor:").contains("Cleaner")
                .doesNotContain("-Xms");
    }

    @Test
    void withoutTheFinalizerTheCollectionsAreNoProblem() {
        assertThat(new GcPressureRule().evaluate(Fixtures.evidence("outside-finalizer-per-request-fixed")).isProblem()).isFalse();
    }

    @Test
    void requestsQueuedOnAJulHandlerAreLoggingPressure() {
        Finding f = new LoggingPressureRule().evaluate(Fixtures.evidence("outside-jul-file-handler"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Audit.order");
        assertThat(f.summary()).startsWith("requests spend 100 % of their time blocked on the logging lock java.util.logging.FileHandler"
                + " (23,582 waits, logging from blind.App$Audit.order:88)");
        assertThat(f.fix()).contains("SLF4JBridgeHandler", "%2$s");
        assertThat(f.explains()).contains("lock-contention");
        assertThat(new LoggingPressureRule().evaluate(Fixtures.evidence("outside-jul-file-handler-fixed")).isProblem()).isFalse();
    }

    @Test
    void aParkedLockIsNamedWithTheSlowCallItsClassMakes() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-token-refresh-under-lock"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Tokens.current:111");
        assertThat(f.summary()).endsWith("; a parked lock records no owner, but the class that takes it, blind.App$Tokens, makes"
                + " http \"GET http://127.0.0.1:18091/token\" (293 calls, 16.5 ms each) at blind.App$Tokens.fetch, in flight 24 %"
                + " of the run's time: made with the lock held, each call stops every waiter.");
        assertThat(f.fix()).startsWith("Do not hold the lock across the call");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-token-refresh-under-lock-fixed")).isProblem()).isFalse();
    }

    @Test
    void aCacheThatKeepsLoadingIsNamedWithItsLoaderAndReader() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-cache-too-small"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind.App$Prices.price");
        assertThat(f.summary()).startsWith("a cache ran its loader blind.App$Prices.compute on 18 % of the CPU samples (the cache read"
                + " at blind.App$Prices.price), and evicted entries on 0.3 % more: the cache misses, and it is full");
        assertThat(f.fix()).startsWith("Size the cache to its working set");
        Finding fixed = new CacheMissesRule().evaluate(Fixtures.evidence("outside-cache-too-small-fixed"));
        assertThat(fixed.severity()).isEqualTo(Severity.OK);
        assertThat(fixed.summary()).isEqualTo("no cache loaded values on the CPU in the profile.");
    }

    @Test
    void aCursorReadTenRowsAtATimeIsTheRootOfThePoolsQueue() {
        Finding f = new ResultFetchesRule().evaluate(Fixtures.evidence("outside-small-fetch-size"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Batch2$EventReport.histogram");
        assertThat(f.summary()).startsWith("the JDBC driver fetched the next rows of open results on 61 % of the CPU samples, reading"
                + " them at blind.Batch2$EventReport.histogram (sql \"select id, kind, payload from b2_events order by id desc");
        assertThat(f.fix()).startsWith("Fetch more rows per round trip").contains("spring.jdbc.template.fetch-size");
        assertThat(f.explains()).contains("pool-size", "pool-starvation");
        Finding fixed = new ResultFetchesRule().evaluate(Fixtures.evidence("outside-small-fetch-size-fixed"));
        assertThat(fixed.isProblem()).isFalse();
        assertThat(fixed.summary()).endsWith("too small a share to matter.");
    }

    @Test
    void valuesWrittenStraightOntoAFileAreTheMethodsOwnCost() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-unbuffered-write"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Batch3$Api3.export");
        assertThat(f.summary()).contains("in its call to java.io.DataOutputStream.writeInt",
                "is reading or writing a file a few bytes at a time (a system call each)");
        assertThat(f.fix()).contains("DataOutputStream.writeInt() straight onto a file stream", "BufferedOutputStream");
        // Buffered, the same method's file writes are its close and flush: no longer a value per call.
        Finding fixed = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-unbuffered-write-fixed"));
        assertThat(fixed.summary()).doesNotContain("a few bytes at a time");
    }

    @Test
    void aTemplateReadFromTheJarPerRequestIsALookupOnTheRequestPath() {
        Finding f = new ClassLoadingRule().evaluate(Fixtures.evidence("outside-classpath-template"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Batch3$Api3.read");
        assertThat(f.summary()).contains("of CPU samples are in class, resource and service lookups, most asked for by"
                + " blind.Batch3$Api3.read");
        assertThat(f.fix()).startsWith("Read the resource once and keep its content");
        assertThat(f.explains()).contains("lock-contention");
        Finding lock = new LockContentionRule().evaluate(Fixtures.evidence("outside-classpath-template"));
        assertThat(lock.culprit()).isEqualTo("blind.Batch3$Api3.read:44");
        assertThat(new ClassLoadingRule().evaluate(Fixtures.evidence("outside-classpath-template-fixed")).isProblem()).isFalse();
    }

    @Test
    void aLookupBeforeEachSaveIsHibernatesAutoFlushNotTheInserts() {
        Finding f = new OrmCpuRule().evaluate(Fixtures.evidence("outside-jpa-auto-flush-loop"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind3.App3$Importer.importBatch");
        assertThat(f.summary()).contains("of CPU samples flush the session automatically before a query (Hibernate's auto-flush)");
        assertThat(f.fix()).startsWith("Query before changing, not in between");
        assertThat(f.explains()).contains("chatty-calls");
        Finding fixed = new OrmCpuRule().evaluate(Fixtures.evidence("outside-jpa-auto-flush-loop-fixed"));
        assertThat(fixed.summary()).doesNotContain("auto-flush");
        assertThat(fixed.explains()).doesNotContain("chatty-calls");
    }

    @Test
    void anArrayListDrainedFromItsFrontIsNamedAsShiftingWhateverTheFrameSays() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-arraylist-queue"));
        assertThat(f.culprit()).isEqualTo("blind.Batch5$Api5.drain");
        assertThat(f.summary()).contains("in its call to java.util.ArrayList.<init>", "is shifting an ArrayList's elements");
        assertThat(f.fix()).startsWith("An ArrayList used as a queue").contains("ArrayDeque");
        assertThat(new CpuHotspotRule().evaluate(Fixtures.evidence("outside-arraylist-queue-fixed")).isProblem()).isFalse();
    }

    @Test
    void aFormatterBuiltPerCallIsNamedWithItsConstruction() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-formatter-per-call"));
        assertThat(f.culprit()).isEqualTo("blind.Batch5$Api5.stamp");
        assertThat(f.summary()).contains("in its call to java.time.format.DateTimeFormatter.ofPattern",
                "that is building a date or number formatter from its pattern");
        assertThat(f.fix()).contains("static final field");
        Finding fixed = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-formatter-per-call-fixed"));
        assertThat(fixed.summary()).doesNotContain("formatter from its pattern");
    }
}
