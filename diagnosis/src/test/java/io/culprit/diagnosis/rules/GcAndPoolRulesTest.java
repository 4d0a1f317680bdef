package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.flat;
import static io.culprit.diagnosis.CaseBuilder.row;
import static io.culprit.diagnosis.CaseBuilder.step;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import java.nio.file.Path;
import java.util.Map;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GC pressure, pool starvation, Little's Law, slow calls and row locks: severity and text. */
class GcAndPoolRulesTest {
    @TempDir Path dir;

    @Test
    void requestsThatHoldOneConnectionAndWaitForAnotherDeadlockThePool() {
        // 16 requests in flight, a pool of 10 all lent and 16 acquires waiting: 10 requests are counted twice.
        var ev = CaseBuilder.in(dir, 20, 2)
                .series("requests", 2000, "rps", flat(10, 1.6), "errors", flat(10, 3.2), "inFlight", flat(10, 16))
                .series("pools", 2000, "dbActive", flat(10, 10), "dbPending", flat(10, 16), "dbTotal", flat(10, 10))
                .tableWithMeta("calls", Map.of("requests", 32),
                        row("kind", "sql", "target", "select id from p where c = ? order by id limit ?", "count", 30, "totalMs", 300000.0),
                        row("kind", "sql", "target", "select sum(qty) from inv where product_id = ?", "count", 309, "totalMs", 250.0))
                .evidence();
        Finding f = new NestedAcquireRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("10 connections lent and 16 acquires waiting with only 16 requests in flight (in 10 of 10"
                + " windows): requests hold a connection while they wait for another, and once every connection is held so, none comes"
                + " back (32 of 32 requests failed); the repeated statement is \"select sum(qty) from inv where product_id = ?\""
                + " (9.7 per request).");
        assertThat(f.explains()).contains("request-errors", "pool-starvation", "slow-calls");
        // The same pool under the same load, each request taking one connection at a time: lent + waiting stay within the requests.
        var fine = CaseBuilder.in(dir.resolve("fine"), 20, 2)
                .series("requests", 2000, "rps", flat(10, 467), "inFlight", flat(10, 16))
                .series("pools", 2000, "dbActive", flat(10, 10), "dbPending", flat(10, 5), "dbTotal", flat(10, 10))
                .evidence();
        Finding ok = new NestedAcquireRule().evaluate(fine);
        assertThat(ok.severity()).isEqualTo(Severity.OK);
        assertThat(ok.summary()).startsWith("connections lent and acquires waiting exceeded the requests in flight in 0 of 10 windows");
    }

    @Test
    void gcPressureThatTracksTheTailIsCriticalWithItsNumbers() {
        Finding f = new GcPressureRule().evaluate(Fixtures.evidence("gc-pool-starvation"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("grew 4.1× (77.2 ms → 314 ms) while their count grew 1.2× (17.2 → 19.8)",
                "heap free after GC 21 % < G1 MinHeapFreeRatio 40 %", "resized 224 → 256 MB of max 1,024 MB",
                "176 KB per request", "the pauses track");
        assertThat(f.explains()).contains("pool-starvation", "tail-latency");
        assertThat(f.culprit()).isEqualTo("G1 heap sizing");
        // Each number points at the column it was computed from, the configured threshold at its table row.
        assertThat(f.numbers()).contains(num("4.1×", "series/gc#pauseSumMs"), num("314 ms", "series/gc#pauseSumMs"),
                num("1.2×", "series/gc#pauseCount"), num("21 %", "series/heap#usedAfterGcMb"), num("40 %", "tables/heap-config#0"),
                num("1,024", "series/heap#maxMb"), num("1.00", "series/requests#p99Ms"), num("0.99", "series/pools#dbPending"),
                num("176", "series/alloc#mbPerSec"));
    }

    private static Finding.NumberRef num(String text, String ref) {
        return new Finding.NumberRef(text, ref);
    }

    @Test
    void gcOnAHealthyServiceIsRuledOutWithTheMeasuredShare() {
        Finding f = new GcPressureRule().evaluate(Fixtures.evidence("healthy"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.verdict()).isEqualTo(Verdict.RULED_OUT);
        assertThat(f.summary()).isEqualTo("GC paused 0.3 % of wall time (worst window 0.4 %); heap free after GC 85 %.");
    }

    @Test
    void aLargePauseShareAloneIsCritical() {
        var ev = CaseBuilder.in(dir, 10, 2).series("gc", 1000, "pauseSumMs", flat(10, 200), "pauseCount", flat(10, 4)).evidence();
        Finding f = new GcPressureRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("GC pauses took 20 % of wall time");
    }

    /**
     * A service outside the lab kept 240 MB in a static list in a 300 MB heap (-Xmx300m): 11 % of
     * wall time paused, heap free after GC 2 %. The heap spanned -Xmx, so "-Xms equal to -Xmx" was
     * no fix; room for the live set, or keeping less, is.
     */
    @Test
    void aHeapAtItsMaximumFullOfLiveDataIsToldToGrowOrKeepLess() {
        var ev = CaseBuilder.in(dir, 10, 2).series("gc", 1000, "pauseSumMs", flat(10, 110), "pauseCount", flat(10, 6))
                .series("heap", 1000, "usedAfterGcMb", flat(10, 293), "committedMb", flat(10, 300), "maxMb", flat(10, 300))
                .tableWithMeta("old-objects", java.util.Map.of("samples", 40),
                        row("site", "blind.Api.audit", "topClass", "byte[]", "samples", 36, "share", 0.9))
                .evidence();
        Finding f = new GcPressureRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.fix()).startsWith("The heap is at its maximum and what survives collection fills 98 % of it")
                .contains("raise -Xmx", "such as the byte[] allocated at blind.Api.audit (90 % of the sampled survivors)", "heap-leak")
                .doesNotContain("-Xms2g");
        // With room left to grow into, pinning the heap's size is still the advice.
        var roomy = CaseBuilder.in(dir.resolve("b"), 10, 2).series("gc", 1000, "pauseSumMs", flat(10, 110), "pauseCount", flat(10, 6))
                .series("heap", 1000, "usedAfterGcMb", flat(10, 200), "committedMb", flat(10, 256), "maxMb", flat(10, 2048))
                .evidence();
        assertThat(new GcPressureRule().evaluate(roomy).fix()).startsWith("Give the heap room and fix its size: -Xms equal to -Xmx");
    }

    /**
     * CI, the gc-pool-starvation faulty twin over 10 s: the gc series' windows are aligned to the
     * clock, so it had 11, the last a few ms long and empty. The share is over the time observed.
     */
    @Test
    void thePauseShareIsOverTheTimeObservedNotOverPartialWindows() {
        double[] pauses = {52, 52, 52, 52, 52, 52, 52, 52, 52, 52, 0};
        var ev = CaseBuilder.in(dir, 10, 2).series("gc", 1000, "pauseSumMs", pauses).evidence();
        Finding f = new GcPressureRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).startsWith("GC pauses took 5.2 % of wall time");
    }

    /**
     * CI, gc-pool-starvation at 200 req/s: the heap's growth between GCs read 13 MB/s, JFR's
     * allocation samples 42 MB/s (219 KB per request; the lab counts 185 KB in the statement alone).
     */
    @Test
    void allocationPerRequestComesFromTheSamplesWhenTheyWereRecorded() {
        var ev = CaseBuilder.in(dir, 10, 2).series("gc", 1000, "pauseSumMs", flat(10, 140))
                .series("alloc", 1000, "mbPerSec", flat(10, 13))
                .series("requests", 1000, "rps", flat(10, 200))
                .tableWithMeta("alloc-sites", java.util.Map.of("totalMb", 437.5),
                        row("site", "StatementService.render", "topClass", "byte[]", "mb", 300.0, "share", 0.69))
                .evidence();
        Finding f = new GcPressureRule().evaluate(ev);
        assertThat(f.summary()).contains("41.7 MB/s allocated, 214 KB per request");
        assertThat(f.numbers()).contains(num("214", "tables/alloc-sites"));
    }

    @Test
    void aTightHeapWithoutImpactIsOnlyInfo() {
        var ev = CaseBuilder.in(dir, 10, 2).series("gc", 1000, "pauseSumMs", flat(10, 5))
                .series("heap", 1000, "usedAfterGcMb", flat(10, 90), "committedMb", flat(10, 100))
                .table("heap-config", row("collector", "G1", "minHeapFreeRatio", 40)).evidence();
        Finding f = new GcPressureRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).contains("heap free after GC 10 % < G1 MinHeapFreeRatio 40 %");
    }

    @Test
    void pausesTrackingASmallTailWobbleAreNotAVerdict() {
        double[] pauses = {2, 12, 2, 12, 2, 12, 2, 12, 2, 12};
        double[] p99 = {20, 60, 20, 60, 20, 60, 20, 60, 20, 60};
        var ev = CaseBuilder.in(dir, 10, 2).series("gc", 1000, "pauseSumMs", pauses)
                .series("requests", 1000, "p99Ms", p99, "rps", flat(10, 100)).evidence();
        Finding f = new GcPressureRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).isEqualTo("GC paused 0.7 % of wall time (worst window 1.2 %).");
    }

    /** CI, the gc-pool-starvation fixed twin: its one young GC (70 ms) fell in the window of its worst P99. */
    @Test
    void aSinglePauseInTheTailsWindowIsACoincidenceButTwoTrackIt() {
        double[] p99 = {15, 14, 141, 11, 9, 10, 12, 11, 9, 10};
        var one = CaseBuilder.in(dir, 10, 2).series("gc", 1000, "pauseSumMs", new double[] {0, 0, 70, 0, 0, 0, 0, 0, 0, 0})
                .series("requests", 1000, "p99Ms", p99, "rps", flat(10, 100)).evidence();
        Finding f = new GcPressureRule().evaluate(one);
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).contains("in one window only: too few pauses to say they track P99 latency (r = 1.00)");

        var two = CaseBuilder.in(dir, 10, 2).series("gc", 1000, "pauseSumMs", new double[] {0, 0, 70, 0, 0, 0, 0, 70, 0, 0})
                .series("requests", 1000, "p99Ms", new double[] {15, 14, 141, 11, 9, 10, 12, 150, 9, 10}, "rps", flat(10, 100))
                .evidence();
        assertThat(new GcPressureRule().evaluate(two).severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void gcWithoutItsSeriesIsNotAssessedAndSaysWhatIsMissing() {
        Finding f = new GcPressureRule().evaluate(CaseBuilder.in(dir, 10, 2).evidence());
        assertThat(f.verdict()).isEqualTo(Verdict.NOT_ASSESSED);
        assertThat(f.summary()).isEqualTo("not assessed: no series gc#pauseSumMs");
    }

    @Test
    void waitsInsideAWriteStatementWithTheDatabasesLockFrameAreARowLock() {
        var ev = CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", flat(10, 20), "meanMs", flat(10, 400))
                .table("db-waits", row("caller", "com.acme.orders.PlaceOrderService.nextNumber", "method", "executeUpdate",
                        "kind", "monitor-wait", "events", 600, "waitMs", 48_000, "lockFrame", "org.h2.mvstore.tx.TransactionMap.lock",
                        "stack", List.of("java.lang.Object.wait")),
                        row("caller", "com.acme.orders.Catalog.find", "method", "executeQuery", "kind", "socket",
                        "events", 10, "waitMs", 900, "lockFrame", null, "stack", List.of()))
                .evidence();
        Finding f = new DbRowLockRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.acme.orders.PlaceOrderService.nextNumber");
        assertThat(f.summary()).isEqualTo("requests spend 60 % of their time blocked in executeUpdate called from"
                + " com.acme.orders.PlaceOrderService.nextNumber (600 waits, 48 s), waiting in the database's lock code"
                + " (org.h2.mvstore.tx.TransactionMap.lock).");
    }

    @Test
    void oneWindowsStallIsNotATail() {
        double[] p99 = CaseBuilder.flat(12, 20);
        p99[3] = 900;  // one slow window (a JIT burst, a neighbour's spike)
        var ev = CaseBuilder.in(dir, 12, 2).series("requests", 1000, "rps", flat(12, 100), "p50Ms", flat(12, 5), "p99Ms", p99).evidence();
        Finding f = new TailLatencyRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).endsWith("P99 in a quarter of the windows reaches 20 ms, 4.0× the median and under 100 ms.");
    }

    @Test
    void aTailThatFadesByTheEndIsWarmUp() {
        double[] p99 = {400, 380, 350, 300, 150, 120, 20, 15, 12};
        var ev = CaseBuilder.in(dir, 9, 2).series("requests", 1000, "rps", flat(9, 100), "p50Ms", flat(9, 2), "p99Ms", p99).evidence();
        Finding f = new TailLatencyRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).endsWith("the tail fades to 15.7 ms in the last third of the run (warm-up, not a steady tail).");
    }

    @Test
    void aTailWhileOtherProcessesHoldTheCpuIsOnlyInfo() {
        var ev = CaseBuilder.in(dir, 9, 2).series("requests", 1000, "rps", flat(9, 100), "p50Ms", flat(9, 15), "p99Ms", flat(9, 600))
                .series("cpu", 1000, "machineTotal", flat(9, 1.0), "jvmUser", flat(9, 0.12), "jvmSystem", flat(9, 0.03)).evidence();
        Finding f = new TailLatencyRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).endsWith("while other processes saturated the CPU.");
    }

    /**
     * CI, the gc-pool-starvation fixed twin: waiters in the first window (warm-up), none after, and
     * two young pauses that correlated with them. Pauses tracking a steady queue still count.
     */
    @Test
    void pausesTrackOnlyAQueueThatLastsNotTheWarmUpsWaiters() {
        Finding f = new GcPressureRule().evaluate(pausesAndWaiters(new double[] {120, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0},
                new double[] {3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
        assertThat(f.severity()).as(f.summary()).isEqualTo(Severity.OK);
        assertThat(f.summary()).doesNotContain("track");

        Finding g = new GcPressureRule().evaluate(pausesAndWaiters(new double[] {120, 0, 0, 0, 0, 100, 0, 0, 0, 110, 0},
                new double[] {3, 0, 0, 0, 0, 3, 0, 0, 0, 3, 0}));
        assertThat(g.severity()).as(g.summary()).isEqualTo(Severity.WARN);
        assertThat(g.summary()).contains("the pauses track the pool's pending threads (r = 1.00)");
    }

    /**
     * CI, log-storm: 8-15 ms young pauses (0.8 % of the time), and in four windows one acquire that a
     * pause stretched past a millisecond, counted as one waiter beside 8-10 idle connections (r = 0.70
     * there; here the longest pauses). The pauses made those "waiters"; they do not track a queue.
     */
    @Test
    void oneSlowAcquirePerPauseIsNoQueue() {
        Finding f = new GcPressureRule().evaluate(pausesAndWaiters(new double[] {0, 11, 0, 10, 9, 8, 8, 15, 7, 15, 0},
                new double[] {0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0}));
        assertThat(f.severity()).as(f.summary()).isEqualTo(Severity.OK);
        Finding g = new GcPressureRule().evaluate(pausesAndWaiters(new double[] {0, 11, 0, 10, 9, 8, 8, 15, 7, 15, 0},
                new double[] {0, 2, 0, 2, 2, 1, 1, 3, 1, 3, 0}));
        assertThat(g.severity()).as(g.summary()).isEqualTo(Severity.WARN);
    }

    /** One-second GC and pool windows: {@code pauseMs} per window (two pauses each), {@code pending} waiters, a pool of 10. */
    private io.culprit.diagnosis.Evidence pausesAndWaiters(double[] pauseMs, double[] pending) {
        double[] count = java.util.Arrays.stream(pauseMs).map(ms -> ms > 0 ? 2 : 0).toArray();
        return CaseBuilder.in(dir, pauseMs.length, 2).series("gc", 1000, "pauseSumMs", pauseMs, "pauseCount", count)
                .series("pools", 1000, "dbPending", pending, "dbTotal", flat(pending.length, 10)).evidence();
    }

    @Test
    void aShortHandOverIsNotStarvationEvenWhenItMovesWithTheTail() {
        var ev = CaseBuilder.in(dir, 6, 2).series("requests", 1000, "rps", flat(6, 3000), "p99Ms", new double[] {5, 9, 5, 9, 5, 9})
                .series("pools", 1000, "dbPending", new double[] {0, 1, 0, 1, 0, 1}, "dbAcquireMsMax", flat(6, 2.1),
                        "dbTotal", flat(6, 10)).evidence();
        Finding f = new PoolStarvationRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.INFO);
    }

    /** CI, healthy lab on 2 cores: one thread waited up to 12.6 ms while the JIT warmed up, then none. */
    @Test
    void aQueueGoneByTheEndIsWarmUpButASteadyOneIsStarvation() {
        double[] p99 = {11, 11, 10, 10, 8, 6, 6, 6, 6};
        var warmUp = CaseBuilder.in(dir, 9, 2).series("requests", 1000, "rps", flat(9, 2000), "p99Ms", p99)
                .series("pools", 1000, "dbPending", new double[] {1, 1, 1, 1, 0, 0, 0, 0, 0},
                        "dbAcquireMsMax", new double[] {12.6, 7.5, 1.6, 1.4, 0.3, 0.4, 0.3, 0.4, 0.3}, "dbTotal", flat(9, 10))
                .evidence();
        Finding f = new PoolStarvationRule().evaluate(warmUp);
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).contains("pending tracks P99", "none waited in the last third of the run (warm-up");

        var steady = CaseBuilder.in(dir, 9, 2).series("requests", 1000, "rps", flat(9, 2000), "p99Ms", new double[] {11, 6, 11, 6, 11, 6, 11, 6, 11})
                .series("pools", 1000, "dbPending", new double[] {1, 0, 1, 0, 1, 0, 1, 0, 1},
                        "dbAcquireMsMax", flat(9, 12.6), "dbTotal", flat(9, 10))
                .evidence();
        assertThat(new PoolStarvationRule().evaluate(steady).severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void littlesLawRulesPoolSizeOut() {
        Finding f = new PoolSizeRule().evaluate(Fixtures.evidence("gc-pool-starvation"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.verdict()).isEqualTo(Verdict.RULED_OUT);
        assertThat(f.summary()).isEqualTo("Little's Law: 813 rps × 4.3 ms usage = 3.5 connections busy on average,"
                + " pool has 10: the pool is not undersized.");
    }

    @Test
    void littlesLawFlagsAPoolAtCapacity() {
        Finding f = new PoolSizeRule().evaluate(Fixtures.evidence("row-lock-prototype-beans"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).contains("× 200 ms usage = 10.0 connections", "pool has 10 (100 % utilised)");
    }

    @Test
    void withoutAMeasuredUsageTimeP50BoundsIt() {
        var ev = CaseBuilder.in(dir, 10, 2).series("pools", 1000, "dbTotal", flat(10, 10))
                .series("requests", 1000, "rps", flat(10, 1000), "p50Ms", flat(10, 2)).evidence();
        Finding f = new PoolSizeRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).contains("1,000 rps × 2 ms (p50, an upper bound on usage) = 2 connections");
    }

    @Test
    void aPoolThatGivesNothingBackIsALeakNotTooSmall() {
        // Recorded outside the lab: a service that leaves every 50th connection open, long exhausted.
        var ev = Fixtures.evidence("outside-connection-leak");
        Finding f = new ConnectionLeakRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("all 10 connections of the pool stayed leased (100 % of 19 windows) and none came back")
                .contains("up to 8 threads waited up to 2,012 ms for one", "connections are leaked, not too few");
        assertThat(f.explains()).contains("pool-size", "pool-starvation", "request-errors");
        assertThat(f.fix()).contains("leak-detection-threshold");
    }

    @Test
    void connectionsThatComeBackAreNoLeak() {
        // gc-pool-starvation exhausts its pool in GC pauses, but every connection is returned.
        Finding f = new ConnectionLeakRule().evaluate(Fixtures.evidence("gc-pool-starvation"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).startsWith("connections came back to the pool (usage time mean");
        // Exhausted and nothing returned, but statements finish: slow work holds the connections.
        var held = CaseBuilder.in(dir, 10, 2).series("pools", 1000, "dbTotal", flat(10, 10), "dbActive", flat(10, 10),
                "dbPending", flat(10, 4)).table("calls", row("kind", "sql", "target", "select 1", "count", 40)).evidence();
        assertThat(new ConnectionLeakRule().evaluate(held).summary()).contains("statements ran (40 finished").contains("not leaked");
        var leaked = CaseBuilder.in(dir.resolve("b"), 10, 2).series("pools", 1000, "dbTotal", flat(10, 10), "dbActive", flat(10, 10),
                "dbPending", flat(10, 4)).evidence();
        assertThat(new ConnectionLeakRule().evaluate(leaked).severity()).isEqualTo(Severity.CRITICAL);
    }

    @Test
    void aPoolThatStopsGivingBackBehindASlowStatementIsNoLeak() {
        // The last six windows: all ten leased, none returned, threads waiting. Statements of 900 ms
        // could hold them that long; statements of 5 ms could not.
        double[] active = flat(10, 3), usage = flat(10, 0.7);
        for (int i = 4; i < 10; i++) {
            active[i] = 10;
            usage[i] = Double.NaN;
        }
        var slow = CaseBuilder.in(dir, 10, 2).series("pools", 1000, "dbTotal", flat(10, 10), "dbActive", active,
                "dbUsageMsMean", usage, "dbPending", flat(10, 6)).table("calls", row("kind", "sql", "target", "select 1",
                "count", 40, "maxMs", 900)).evidence();
        assertThat(new ConnectionLeakRule().evaluate(slow).isProblem()).isFalse();
        var fast = CaseBuilder.in(dir.resolve("b"), 10, 2).series("pools", 1000, "dbTotal", flat(10, 10), "dbActive", active,
                "dbUsageMsMean", usage, "dbPending", flat(10, 6)).table("calls", row("kind", "sql", "target", "select 1",
                "count", 40, "maxMs", 5)).evidence();
        Finding f = new ConnectionLeakRule().evaluate(fast);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("the pool ran dry during the run: for the first 4 s connections came back after 0.7 ms");
    }

    @Test
    void aCallUnderItsThresholdThatHoldsMostOfRequestTimeIsNamed() {
        var ev = CaseBuilder.in(dir, 10, 2).table("calls", row("kind", "http", "target", "GET http://127.0.0.1:45627/quote",
                "count", 1853, "p99Ms", 92.9, "shareOfRequestTime", 0.985, "caller", "com.acme.Api.quote:88")).evidence();
        Finding f = new SlowCallsRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("GET http://127.0.0.1:45627/quote");
        assertThat(f.summary()).isEqualTo("requests spend 99 % of their time in http \"GET http://127.0.0.1:45627/quote\" (P99"
                + " 92.9 ms, under the 200 ms that makes a call slow; 1,853 calls; called from com.acme.Api.quote:88): the service"
                + " is as fast as this dependency.");
        assertThat(f.confirm()).endsWith("\"trace com.acme.Api quote '#cost > 46'\"");
        var half = CaseBuilder.in(dir.resolve("b"), 10, 2).table("calls", row("kind", "http", "target", "GET /x", "count", 10,
                "p99Ms", 92.9, "shareOfRequestTime", 0.5)).evidence();
        assertThat(new SlowCallsRule().evaluate(half).severity()).isEqualTo(Severity.OK);
    }

    /**
     * A reverse lookup per request (an access log naming each client) against a resolver that takes
     * 40 ms: over DNS's own 20 ms threshold, where HTTP's 200 ms would have called it fast.
     */
    @Test
    void aLookupThatReachesASlowResolverIsASlowCallWithItsOwnCure() {
        var ev = CaseBuilder.in(dir, 10, 2).table("calls", row("kind", "dns", "target", "reverse lookup", "count", 600,
                "p99Ms", 41.5, "shareOfRequestTime", 0.62, "caller", "com.acme.AccessLog.client:31")).evidence();
        Finding f = new SlowCallsRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("dns \"reverse lookup\" P99 41.5 ms (threshold 20 ms)", "called from com.acme.AccessLog.client:31");
        assertThat(f.fix()).startsWith("Do not turn client addresses into names on the request path");
    }

    @Test
    void clientsWaitingFarBeyondTheContainerOfAFullPoolAreQueuedForAThread() {
        // Recorded outside the lab: 4 Tomcat threads in front of a ~90 ms dependency, 32 connections.
        Finding f = new ContainerQueueRule().evaluate(Fixtures.evidence("outside-container-queue"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("all 4 container threads busy in 95 % of 21 windows, and clients waited 705 ms for"
                + " responses the container served in 89.1 ms: 87 % of their time queued for a thread.");
        assertThat(f.explains()).contains("slow-calls", "outside-handler");
        // The same times with threads to spare: the wait is not the container's queue.
        var spare = CaseBuilder.in(dir, 10, 2).series("pools", 1000, "containerBusy", flat(10, 30), "containerMax", flat(10, 200))
                .table("routes", row("route", "GET /q", "count", 900, "containerMs", 89.1))
                .loadJson("\"plan\":{\"model\":\"closed\"},\"summary\":{\"service_ms\":{\"mean\":705.0}}").evidence();
        Finding ok = new ContainerQueueRule().evaluate(spare);
        assertThat(ok.severity()).isEqualTo(Severity.OK);
        assertThat(ok.summary()).endsWith("all 200 container threads busy in 0 % of 10 windows: no queue in front of the container.");
    }

    @Test
    void poolStarvationTrackingTheTailIsCritical() {
        Finding f = new PoolStarvationRule().evaluate(Fixtures.evidence("gc-pool-starvation"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("up to 189 threads waited for a connection for a pool of 10", "pending tracks P99 (r = 0.99)");
    }

    @Test
    void flatUsageTimeRulesTheDatabaseOut() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("gc-pool-starvation"));
        assertThat(f.verdict()).isEqualTo(Verdict.RULED_OUT);
        assertThat(f.summary()).isEqualTo("connection usage time (mean) 4.3 ms → 4.3 ms while P99 went 49.6 ms → 1,049 ms:"
                + " flat, so the database did not get slower.");
    }

    @Test
    void growingUsageTimeMeansTheDependencySlowed() {
        var ev = CaseBuilder.in(dir, 12, 2).series("pools", 1000, "dbUsageMsMean", step(12, 5, 15)).evidence();
        Finding f = new SlowCallsRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).isEqualTo("connection usage time (mean) 5 ms → 15 ms: connections are held 3.0× longer.");
    }

    @Test
    void slowCallsNameTheStatementAgainstItsThreshold() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("row-lock-prototype-beans"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("UPDATE stock SET reserved = reserved + ? WHERE sku = ?");
        assertThat(f.summary()).contains("take 82 % of request time", "P99 4 s (threshold 100 ms), 3,000 calls");
        // The same "82 %" twice: all slow targets (the table), then the worst one (its row); thresholds are constants, untagged.
        assertThat(f.numbers()).containsExactly(num("1", "tables/calls"), num("82 %", "tables/calls"), num("4 s", "tables/calls#0"),
                num("3,000", "tables/calls#0"), num("82 %", "tables/calls#0"));
    }

    @Test
    void aSlowCallSaysWhereTheAgentSawItCalledFrom() {
        var ev = CaseBuilder.in(dir, 12, 2).table("calls", row("kind", "http", "target", "GET http://pricing/quote/{id}",
                "count", 600, "totalMs", 180_000.0, "p99Ms", 450.0, "shareOfRequestTime", 0.6,
                "caller", "com.acme.PricingClient.quote:31", "callPath", "com.acme.PricingClient.quote:31 ← com.acme.CartService.total:88")).evidence();
        Finding f = new SlowCallsRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).endsWith("60 % of request time; called from com.acme.PricingClient.quote:31 ← com.acme.CartService.total:88.");
    }

    @Test
    void fastCallsAreRuledOut() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("healthy"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).contains("no dependency call over its threshold", "across 2 call targets");
    }

    @Test
    void rowLockWaitsFromTheLockTableAreCritical() {
        Finding f = new DbRowLockRule().evaluate(Fixtures.evidence("row-lock-prototype-beans"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("2,950 waits on a row lock of stock by \"UPDATE stock SET reserved = reserved + ?"
                + " WHERE sku = ?\", 4,650 s of waiting in total: 77 % of request time.");
        assertThat(f.explains()).contains("slow-calls", "pool-starvation");
    }

    @Test
    void aSlowHotUpdateWithoutLockEvidenceIsSuspectedNotProven() {
        var ev = CaseBuilder.in(dir, 10, 2).table("calls",
                row("kind", "sql", "target", "update counters set n = n + 1 where id = ?", "p99Ms", 900, "shareOfRequestTime", 0.5),
                row("kind", "sql", "target", "select * from t", "p99Ms", 900, "shareOfRequestTime", 0.4)).evidence();
        Finding f = new DbRowLockRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).contains("takes 50 % of request time (P99 900 ms): likely waiting on a row lock");
    }

    @Test
    void tailLatencyReportsBeforeAndAfter() {
        Finding f = new TailLatencyRule().evaluate(Fixtures.evidence("gc-pool-starvation"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("P99 49.6 ms → 1,049 ms (worst 1,074 ms), P50 3.1 ms → 17.8 ms at 798 → 813 rps:"
                + " P99 in a quarter of the windows reaches 1,056 ms, 340× the median request.");
    }
}
