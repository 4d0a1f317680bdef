package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Services written outside the lab in session 32 (Spring Boot 3.5.7 on PostgreSQL 15, recorded by
 * {@code culprit diagnose} with 16 connections): a connection left open on a rare error path,
 * which drains the pool during the run (read pool-starvation with no cause); a JDK 17 service
 * started with an 8 MB code cache, 70 % interpreted (read "the JIT was still compiling"); 200
 * unique strings interned per request (named at String.intern with the generic cure); a listener
 * added per request to a CopyOnWriteArrayList and never removed (the cure for a lock in one's own
 * code, "make the call before taking the lock"); three quotes per request fetched in parallel on an
 * executor with room (lock-contention CRITICAL on the futures, with the cure "do not hand off"); a
 * root log level left at DEBUG (the fix said "DEBUG for per-request lines", the culprit the logger
 * with the most stack traces); an audit helper that names its caller with Thread.getStackTrace
 * (the cure for exceptions used as control flow); a Jedis built per request (a slow Redis GET, with
 * "make the call cheaper"); one user's keys found with SCAN over the keyspace (the MGET cure).
 */
class OutsideDrainsAndTablesTest {

    @Test
    void aPoolThatRunsDryDuringTheRunIsALeakOnSomePath() {
        Finding f = new ConnectionLeakRule().evaluate(Fixtures.evidence("outside-leak-under-review"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("the pool ran dry during the run: for the first 20 s connections came back after 0.7 ms"
                + " on average, then all 10 stayed leased and none came back for the last 11 s, while up to 16 threads waited;"
                + " no statement took longer than 45.5 ms: connections are leaked one at a time on some path, not too few.");
        assertThat(f.explains()).contains("pool-starvation", "pool-size");
        assertThat(f.fix()).contains("on the error paths too", "leak-detection-threshold");
    }

    @Test
    void closingOnTheErrorPathLeavesNoLeak() {
        Finding f = new ConnectionLeakRule().evaluate(Fixtures.evidence("outside-leak-under-review-fixed"));
        assertThat(f.isProblem()).isFalse();
        assertThat(f.summary()).startsWith("connections came back to the pool");
    }

    @Test
    void aServiceInterpretedBesideACrowdedSmallCodeCacheIsTheCache() {
        Finding f = new InterpretedCodeRule().evaluate(Fixtures.evidence("outside-small-code-cache"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("the code cache (8 MB)");
        assertThat(f.summary()).isEqualTo("70 % of 3,057 execution samples ran interpreted, most in TreeMap.merge: the code cache is"
                + " 8 MB (HotSpot's default is 240 MB) and has 1,529 KB of 8 MB left, so the JVM flushes compiled methods to make"
                + " room and runs them interpreted until they are compiled again.");
        assertThat(f.explains()).contains("cpu-hotspot");
        assertThat(f.fix()).startsWith("Raise -XX:ReservedCodeCacheSize (8 MB here; double it, or remove the flag for HotSpot's 240 MB)");
    }

    @Test
    void theDefaultCodeCacheRunsCompiled() {
        Finding f = new InterpretedCodeRule().evaluate(Fixtures.evidence("outside-small-code-cache-fixed"));
        assertThat(f.isProblem()).isFalse();
        assertThat(f.summary()).endsWith("compiled code carries the load.");
    }

    @Test
    void stringsInternedPerRequestAreNamedWithTheirCure() {
        // 45 % of CPU samples in the full profile (WARN); the fixture keeps the heaviest 80 % of them.
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-intern-per-tag"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.App$Api.tags");
        assertThat(f.summary()).contains("in its call to java.lang.String.intern", "that is interning strings (String.intern, the"
                + " JVM's string table)");
        assertThat(f.fix()).startsWith("String.intern looks each string up in the JVM's own string table").contains("INTERN_FIELD_NAMES");
    }

    @Test
    void withoutInternTheTagsAreNoHotspot() {
        assertThat(new CpuHotspotRule().evaluate(Fixtures.evidence("outside-intern-per-tag-fixed")).isProblem()).isFalse();
    }

    @Test
    void aCopyOnWriteListThatOnlyGrowsIsNamedALeakOfEntries() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-listener-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).endsWith("inside it the holder spends 100 % of its 298 CPU samples in"
                + " java.util.concurrent.CopyOnWriteArrayList.add, copy-on-write collections (each write copies the whole array),"
                + " and no sample removes from it: entries are added and never removed, so it grows with every request and each"
                + " add copies more.");
        assertThat(f.fix()).contains("Nothing removes what the requests add", "in a finally").doesNotContain("before taking the lock");
    }

    @Test
    void removingTheListenerLeavesNoContention() {
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-listener-per-request-fixed")).isProblem()).isFalse();
    }

    @Test
    void requestsWaitingForParallelRemoteCallsOnAPoolWithRoomAreNoLockProblem() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-quotes-on-common-pool-fixed"));
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).contains("waiting for work handed to other threads", "; the tasks handed off make http"
                + " \"GET http://127.0.0.1:18092/quote\" (3 per request, P99 30.2 ms, 100 % of request time): the requests wait"
                + " for that dependency, called in parallel, as the hand-off intends");
        Finding calls = new SlowCallsRule().evaluate(Fixtures.evidence("outside-quotes-on-common-pool-fixed"));
        assertThat(calls.severity()).isEqualTo(Severity.WARN);
        assertThat(calls.culprit()).isEqualTo("GET http://127.0.0.1:18092/quote");
    }

    @Test
    void aThreadPerTaskStaysTheCauseWhenTheHandOffIsToTheCommonPool() {
        Finding f = new ThreadChurnRule().evaluate(Fixtures.evidence("outside-quotes-on-common-pool"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("with a common pool of fewer than 2 threads (2 CPUs or fewer) the JDK starts a thread per task");
    }

    @Test
    void aDebugLevelLeftOnIsTheCauseOfTheLoggingWait() {
        Finding f = new LoggingPressureRule().evaluate(Fixtures.evidence("outside-debug-level-left-on"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("the DEBUG log level (org.springframework.web.servlet.DispatcherServlet the loudest)");
        // The loudest logger by events, not the one with the most stack traces (34 from Tomcat's processor).
        assertThat(f.summary()).endsWith("; 100 % of the events at DEBUG or TRACE; most events at DEBUG from"
                + " org.springframework.web.servlet.DispatcherServlet.");
        assertThat(f.fix()).startsWith("Most events are DEBUG or TRACE lines: the level was lowered, for a diagnosis or by a"
                + " profile, and left so. Set it back to INFO (Spring Boot: logging.level.root");
    }

    @Test
    void stackTracesBuiltToNameTheCallerAreNotThrownExceptions() {
        Finding f = new CaughtExceptionsRule().evaluate(Fixtures.evidence("outside-caller-name-per-line"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("shop.App$Api.audit:261");
        assertThat(f.summary()).startsWith("Thread.getStackTrace() built 5.0 java.lang.Exception per request at shop.App$Api.audit:261 (")
                .contains("nothing is thrown, but each call walks and copies the whole stack to read it");
        assertThat(f.fix()).startsWith("Pass the caller's name in, or read only the frames needed with StackWalker")
                .doesNotContain("exceptional path");
    }

    @Test
    void atInfoTheLogIsNoPressureAndANamedCallerReadsNoStack() {
        assertThat(new LoggingPressureRule().evaluate(Fixtures.evidence("outside-debug-level-left-on-fixed")).isProblem()).isFalse();
        assertThat(new CaughtExceptionsRule().evaluate(Fixtures.evidence("outside-caller-name-per-line-fixed")).isProblem()).isFalse();
    }

    @Test
    void aRedisClientBuiltPerRequestIsNamedByItsConnects() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-jedis-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("worst: redis \"GET\" P99 14.8 ms").endsWith(" of the CPU samples under App$Api.flag open a"
                + " new connection for it (a socket connect): the client connects on every call.");
        assertThat(f.fix()).startsWith("Build the Redis client once and share it: a JedisPool or JedisPooled (Jedis)");
    }

    @Test
    void aPooledClientMakesNoConnects() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-jedis-per-request-fixed"));
        assertThat(f.summary()).doesNotContain("open a new connection");
        assertThat(f.fix()).doesNotContain("Build the Redis client once");
    }

    @Test
    void scanningTheKeyspaceForAFewKeysGetsItsOwnCure() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-scan-for-sessions"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("redis \"SCAN\" runs 598 times per request");
        assertThat(f.fix()).startsWith("SCAN walks the whole keyspace, COUNT keys per call").doesNotContain("MGET");
        assertThat(new ChattyCallsRule().evaluate(Fixtures.evidence("outside-scan-for-sessions-fixed")).isProblem()).isFalse();
    }
}
