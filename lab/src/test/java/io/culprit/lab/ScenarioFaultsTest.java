package io.culprit.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.hystrix.util.HystrixTimer;
import io.culprit.lab.customers.ProductLookup;
import io.culprit.lab.data.PoolMetrics;
import io.culprit.lab.orders.StatementService;
import io.culprit.model.HostReclaim;
import java.lang.management.ManagementFactory;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * Each in-process scenario against its fixed twin, in one Spring context (the mode is flipped
 * between runs): the symptom must be real and the fix must remove it. Load is short and bounded
 * on 127.0.0.1; the thresholds are far from the measured values (docs/LAB.md) because the CI
 * machine has 2 busy cores. converter-rebuild and gc-pool-starvation need the fat jar or JVM flags
 * and are *IT tests.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"lab.resource-cache-ttl-ms=1000", "lab.log-file=target/lab-test.log"})
class ScenarioFaultsTest {

    static final AtomicLong LOOKUPS_CREATED = new AtomicLong();

    @TestConfiguration
    static class CountBeans {
        /** Counts ProductLookup creations as the container performs them. */
        @Bean
        static BeanPostProcessor lookupCounter() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    if (bean instanceof ProductLookup) {
                        LOOKUPS_CREATED.incrementAndGet();
                    }
                    return bean;
                }
            };
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    LabMode mode;

    @AfterEach
    void reset() {
        mode.set(Scenario.HEALTHY, false);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @Test
    void healthyServesTheApi() {
        assertThat(LabLoad.body(LabLoad.get(url("/api/orders/7")))).contains("\"id\":7", "\"lines\":[");
        assertThat(LabLoad.body(LabLoad.get(url("/api/orders/8/invoice")))).contains("INV-8");
        assertThat(LabLoad.body(LabLoad.get(url("/api/orders/7/availability")))).contains("\"inStock\"");
        assertThat(LabLoad.body(LabLoad.get(url("/api/products/4")))).contains("SKU-10004");
        assertThat(LabLoad.body(LabLoad.get(url("/api/customers/3/feed")))).contains("PRODUCT ");
        assertThat(LabLoad.body(LabLoad.postJson(url("/api/orders"), "{\"customerId\":3,\"items\":[{\"productId\":4,\"qty\":2}]}")))
                .contains("\"authorization\":\"AUTH-");
        assertThat(LabLoad.body(LabLoad.get(url("/lab/mode")))).contains("\"scenario\":\"healthy\"");
    }

    @Autowired
    StatementService statements;

    @Test
    void statementAllocatesAbout170KbPerRequest() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 50; i++) {
            statements.render(7);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 50; i++) {
            statements.render(7 + i);
        }
        double perRequestKb = (threads.getCurrentThreadAllocatedBytes() - before) / 50.0 / 1024;
        System.out.printf("gc-pool-starvation: statement allocates %.0f KB per request%n", perRequestKb);
        assertThat(perRequestKb).isBetween(140.0, 220.0);
    }

    @Test
    void idleResourceScanSlowsTheFirstRequestAfterAnIdleGap() throws Exception {
        mode.set(Scenario.IDLE_RESOURCE_SCAN, false);
        double faulty = idlePenaltyMs();
        mode.set(Scenario.IDLE_RESOURCE_SCAN, true);
        double fixed = idlePenaltyMs();
        System.out.printf("idle-resource-scan: first-after-idle minus back-to-back, median: faulty %.1f ms, fixed %.1f ms%n", faulty, fixed);
        assertThat(faulty).isGreaterThanOrEqualTo(20);
        // A host that pages out memory left idle for a second (DAMON's pageout scheme on session 48's machine, no
        // swap: the JVM's file-backed pages) gives every request after a gap 40-150 ms of its own, the fixed twin's too.
        org.junit.jupiter.api.Assumptions.assumeTrue(HostReclaim.describe().isEmpty(),
                () -> "the host pages out idle memory (" + HostReclaim.describe() + "): the fixed twin's idle penalty is the host's");
        assertThat(fixed).isLessThan(20);
    }

    /** Median over 3 trials of (first request after a 1.5 s idle gap) minus (median of 5 back-to-back). */
    private double idlePenaltyMs() throws InterruptedException {
        HttpRequest req = LabLoad.get(url("/api/orders/7"));
        for (int i = 0; i < 20; i++) {
            LabLoad.once(req);
        }
        List<Double> penalties = new ArrayList<>();
        for (int trial = 0; trial < 3; trial++) {
            // The idle gap is the mechanism under test: longer than the 1 s cache TTL.
            Thread.sleep(1_500);
            double first = LabLoad.once(req) / 1e6;
            List<Double> next = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                next.add(LabLoad.once(req) / 1e6);
            }
            penalties.add(first - median(next));
        }
        return median(penalties);
    }

    @Test
    void rowLockStopsThroughputFromScalingWithConcurrency() throws Exception {
        HttpRequest req = LabLoad.postJson(url("/api/orders"),
                "{\"customerId\":3,\"items\":[{\"productId\":4,\"qty\":2},{\"productId\":9,\"qty\":1},{\"productId\":12,\"qty\":3}]}");
        RowLockScaling.Ratios ratios = RowLockScaling.measure(mode, req);
        double faulty = ratios.faulty();
        double fixed = ratios.fixed();
        System.out.printf("row-lock: throughput 8 clients / 1 client: faulty %.2f, fixed %.2f%n", faulty, fixed);
        // Ideal scaling would be 8; the faulty twin only overlaps what runs outside the lock.
        assertThat(faulty).isLessThan(1.5);
        assertThat(fixed).isGreaterThan(Math.max(2.0, 1.8 * faulty));
    }

    @Test
    void prototypeBeanIsCreated200TimesPerRequest() throws Exception {
        HttpRequest req = LabLoad.get(url("/api/customers/3/feed"));
        mode.set(Scenario.PROTOTYPE_BEAN, false);
        double faultyPerRequest = perRequest(req, 10, LOOKUPS_CREATED::get);
        LabLoad.Result faulty = LabLoad.closed(req, 4, Duration.ofSeconds(3));
        mode.set(Scenario.PROTOTYPE_BEAN, true);
        double fixedPerRequest = perRequest(req, 10, LOOKUPS_CREATED::get);
        LabLoad.Result fixed = LabLoad.closed(req, 4, Duration.ofSeconds(3));
        System.out.printf("prototype-bean: beans/request faulty %.0f, fixed %.0f; faulty %s; fixed %s%n",
                faultyPerRequest, fixedPerRequest, faulty, fixed);
        assertThat(faultyPerRequest).isEqualTo(200);
        assertThat(fixedPerRequest).isEqualTo(1);
        assertThat(fixed.throughput()).isGreaterThan(faulty.throughput() * 1.2);
    }

    /** How far {@code counter} moves per request, over {@code n} sequential requests. */
    private static double perRequest(HttpRequest req, int n, java.util.function.LongSupplier counter) {
        long before = counter.getAsLong();
        for (int i = 0; i < n; i++) {
            LabLoad.once(req);
        }
        return (counter.getAsLong() - before) / (double) n;
    }

    @Autowired
    io.culprit.lab.orders.Receipts receipts;

    /**
     * receipt-leak keeps every receipt (~48 KB) reachable; the fixed twin only the newest 200. The
     * switch stands for a redeploy of the fix, so the faulty archive goes with the faulty code.
     */
    @Test
    void receiptLeakKeepsEveryReceiptAndTheFixedTwinTheNewest200() throws Exception {
        HttpRequest req = LabLoad.get(url("/api/orders/7/receipt"));
        mode.set(Scenario.RECEIPT_LEAK, false);
        int before = receipts.archived();
        String first = LabLoad.body(req);
        assertThat(first).contains("\"bytes\":47880");
        long number = Long.parseLong(first.replaceAll(".*\"number\":(\\d+).*", "$1"));
        for (int i = 0; i < 400; i++) {
            LabLoad.once(req);
        }
        int faulty = receipts.archived() - before;
        // The faulty twin's first receipt is still there: nothing ever let it go.
        assertThat(LabLoad.body(LabLoad.get(url("/api/receipts/" + number)))).startsWith("RECEIPT " + number);
        mode.set(Scenario.RECEIPT_LEAK, true);
        for (int i = 0; i < 400; i++) {
            LabLoad.once(req);
        }
        int fixed = receipts.archived();
        System.out.printf("receipt-leak: receipts kept after 401 requests faulty %d, after 400 more fixed %d%n", faulty, fixed);
        assertThat(faulty).isEqualTo(401);
        assertThat(fixed).isEqualTo(200);
    }

    @Autowired
    PoolMetrics pool;

    @Test
    void nPlusOneRunsAQueryPerOrderAndTheFixedTwinOne() throws Exception {
        HttpRequest req = LabLoad.get(url("/api/orders/recent?limit=40"));
        mode.set(Scenario.N_PLUS_ONE, false);
        String faultyBody = LabLoad.body(req);
        double faultyPerRequest = perRequest(req, 10, () -> pool.snapshot().acquires());
        LabLoad.Result faulty = LabLoad.closed(req, 4, Duration.ofSeconds(3));
        mode.set(Scenario.N_PLUS_ONE, true);
        String fixedBody = LabLoad.body(req);
        double fixedPerRequest = perRequest(req, 10, () -> pool.snapshot().acquires());
        LabLoad.Result fixed = LabLoad.closed(req, 4, Duration.ofSeconds(3));
        System.out.printf("n-plus-one: queries/request faulty %.0f, fixed %.0f; faulty %s; fixed %s%n",
                faultyPerRequest, fixedPerRequest, faulty, fixed);
        // Each JdbcTemplate query outside a transaction takes a connection of its own: one acquire per query.
        assertThat(faultyPerRequest).isEqualTo(41);
        assertThat(fixedPerRequest).isEqualTo(2);
        // The newest orders: seeded ones (5 lines), or row-lock's if its test ran first in this context.
        assertThat(fixedBody).isEqualTo(faultyBody).containsPattern("\"items\":[1-9]").contains("\"skus\":[\"SKU-");
        // 39 embedded-H2 queries of a few µs each against the same JSON of 40 orders: measured
        // fixed/faulty 1.6-2.2 here, 1.40 once on CI's 2 busy cores (docs/LAB.md). 1.2 still
        // fails a fix that does not remove the round trips' cost.
        assertThat(fixed.throughput()).isGreaterThan(faulty.throughput() * 1.2);
    }

    @Autowired
    org.springframework.jdbc.core.JdbcTemplate jdbc;

    /**
     * over-fetch reads every order of the shop to keep customer 912's 5 open ones (its 6th order
     * is delivered); the fixed twin reads those 5. Rows are counted by H2 per statement, the
     * request threads' CPU and allocation over alternating windows of 4 clients.
     */
    @Test
    void overFetchReadsEveryOrderToKeepAHandfulAndTheFixedTwinOnlyThose() throws Exception {
        HttpRequest req = LabLoad.get(url(ScenarioFiles.endpointPath("over-fetch")));
        // 2,000 seeded orders, more if row-lock's or the healthy test's orders (customer 3's) went in first.
        long orders = jdbc.queryForObject("SELECT COUNT(*) FROM orders", Long.class);
        String ordersSelect = "%FROM orders o JOIN customers c%";
        mode.set(Scenario.OVER_FETCH, false);
        String faultyBody = LabLoad.body(req);
        QueryRows.Totals faultyRows = QueryRows.during(jdbc, ordersSelect, () -> sequential(req, 10));
        mode.set(Scenario.OVER_FETCH, true);
        String fixedBody = LabLoad.body(req);
        QueryRows.Totals fixedRows = QueryRows.during(jdbc, ordersSelect, () -> sequential(req, 10));
        TwinWindows twins = TwinWindows.measure(mode, Scenario.OVER_FETCH, req, 4, Duration.ofSeconds(2), 2);
        System.out.printf("over-fetch: orders SELECTs/request faulty %.1f, fixed %.1f; rows/request faulty %.0f (of %d orders),"
                        + " fixed %.0f; faulty %s; fixed %s (%.1fx the throughput, %.1fx less CPU per request)%n",
                faultyRows.statements() / 10.0, fixedRows.statements() / 10.0, faultyRows.rows() / 10.0, orders,
                fixedRows.rows() / 10.0, twins.faulty(), twins.fixed(), twins.fixed().throughput() / twins.faulty().throughput(),
                twins.faulty().cpuMsPerRequest() / twins.fixed().cpuMsPerRequest());
        // The same orders in the same order: only where the filtering happens differs.
        assertThat(fixedBody).isEqualTo(faultyBody).startsWith("{\"customerId\":912,")
                .contains("\"id\":1345,", "\"id\":1761,").doesNotContain("\"id\":5,");
        assertThat(fixedBody.split("\"number\"", -1)).hasSize(6);
        // One statement per request in both twins; the faulty one returns the whole table.
        assertThat(faultyRows.statements()).isEqualTo(10);
        assertThat(fixedRows.statements()).isEqualTo(10);
        assertThat(faultyRows.rows()).isEqualTo(10 * orders);
        assertThat(fixedRows.rows()).isEqualTo(10 * 5);
        // 2,000 objects built and dropped per request against 5: measured 166-168 KB against 24-26 KB (206 KB at 2,709 orders).
        assertThat(twins.faulty().kbPerRequest()).isGreaterThan(3 * twins.fixed().kbPerRequest());
        // H2 hands a repeated query's previous result back while no table has changed, so here the fault's
        // time is the mapping of the rows and their garbage, not a scan: CPU per request measured 1.4-2.5x
        // (1.3-2.4x the throughput, which is reported only), 1.4x at load average 16. A fix that still read
        // the table reads 1x. On PostgreSQL the table crosses the socket too (PostgresRedisTest).
        assertThat(twins.faulty().cpuMsPerRequest()).isGreaterThan(1.2 * twins.fixed().cpuMsPerRequest());
    }

    private static void sequential(HttpRequest req, int n) {
        for (int i = 0; i < n; i++) {
            LabLoad.once(req);
        }
    }

    @Test
    void quadraticKeywordsBurnCpuInTheControllerAndTheFixedTwinDoesNot() throws Exception {
        HttpRequest req = LabLoad.get(url("/api/products/keywords?q=product%2012"));
        mode.set(Scenario.QUADRATIC_KEYWORDS, false);
        String faultyBody = LabLoad.body(req);
        LabLoad.closed(req, 2, Duration.ofSeconds(2));  // compiled before it is measured
        double faultyCpu = requestCpuMs(req);
        mode.set(Scenario.QUADRATIC_KEYWORDS, true);
        String fixedBody = LabLoad.body(req);
        LabLoad.closed(req, 2, Duration.ofSeconds(2));
        double fixedCpu = requestCpuMs(req);
        System.out.printf("quadratic-keywords: CPU per request faulty %.2f ms, fixed %.2f ms; %s%n", faultyCpu, fixedCpu, fixedBody);
        // The same terms in the same order: only the deduplication's data structure differs.
        assertThat(fixedBody).isEqualTo(faultyBody).startsWith("[\"Product 12\",\"product 12\",\"Product 120\",\"product 120\"");
        // ~4 million String.equals against 3,500 hash lookups, both beside the same request handling
        // (measured as the request threads' CPU time, not wall time). Alone: 3.4-9.9x (faulty 9.2-11.6
        // ms, fixed 1.0-3.4 ms, stable within a run, so it is how the JIT compiled each twin). After
        // the other scenarios in this JVM, one CI run read 6.22 against 3.05 ms: 2.0x. A fix that left
        // the scan in place reads 1x.
        assertThat(faultyCpu).isGreaterThan(fixedCpu * 1.6);
    }

    /** CPU time of the container's request threads per request, over 40 sequential requests. */
    private static double requestCpuMs(HttpRequest req) {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        return perRequest(req, 40, () -> requestThreadsCpuNs(threads)) / 1e6;
    }

    private static long requestThreadsCpuNs(java.lang.management.ThreadMXBean threads) {
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("-exec-")) sum += Math.max(0, threads.getThreadCpuTime(t.getId()));
        }
        return sum;
    }


    @Test
    void timerLockParksThreadsOnTheSharedTimerLock() throws Exception {
        HttpRequest req = LabLoad.get(url("/api/products/4"));
        mode.set(Scenario.TIMER_LOCK, false);
        LabLoad.closed(req, 8, Duration.ofSeconds(2));
        long scheduledBefore = timerTasks();
        var faulty = Jfr.record(Map.of("jdk.ThreadPark", "PT0S"), () -> LabLoad.closed(req, 8, Duration.ofSeconds(4)));
        double listenersPerRequest = (timerTasks() - scheduledBefore) / (double) faulty.result().requests();
        mode.set(Scenario.TIMER_LOCK, true);
        LabLoad.closed(req, 8, Duration.ofSeconds(2));
        long tasksBeforeFixed = timerTasks();
        var fixed = Jfr.record(Map.of("jdk.ThreadPark", "PT0S"), () -> LabLoad.closed(req, 8, Duration.ofSeconds(4)));
        long faultyParks = timerLockParks(faulty.events());
        // Timeouts registered in the faulty window still fire during the fixed one, and the timer's
        // own threads may then meet on the queue's lock; other scheduled executors (the pool's
        // housekeeper, the container's utility threads) park on a queue of the same class. Only
        // request threads' parks count there (CI: one park by a thread of neither kind).
        long fixedParks = fixed.events().stream().filter(ScenarioFaultsTest::onTimerLock)
                .filter(e -> e.getThread() != null && e.getThread().getJavaName().contains("-exec-")).count();
        long faultyUnderAdd = faulty.events().stream().filter(ScenarioFaultsTest::onTimerLock)
                .filter(e -> Jfr.hasFrame(e, "com.netflix.hystrix.util.HystrixTimer", "addTimerListener")).count();
        System.out.printf("timer-lock: timer listeners/request %.2f; parks on the timer queue's lock faulty %d (%d under"
                        + " addTimerListener), fixed %d; faulty %s; fixed %s%n",
                listenersPerRequest, faultyParks, faultyUnderAdd, fixedParks, faulty.result(), fixed.result());
        assertThat(listenersPerRequest).isBetween(3.5, 4.5);
        assertThat(timerTasks()).isEqualTo(tasksBeforeFixed);
        // On 2 cores a thread finds the lock taken only when its holder runs on the other core or
        // was preempted holding it: rare (parks counted per 4 s window are in docs/LAB.md), but
        // never zero under this concurrency, and impossible in the fixed twin.
        assertThat(faultyParks).as("parks on HystrixTimer's queue lock").isGreaterThanOrEqualTo(1);
        assertThat(fixedParks).isZero();
        assertThat(fixed.result().throughput()).isGreaterThan(faulty.result().throughput() * 1.2);
    }

    private static long timerLockParks(List<RecordedEvent> parks) {
        return parks.stream().filter(ScenarioFaultsTest::onTimerLock).count();
    }

    /**
     * A park on the ReentrantLock of a ScheduledThreadPoolExecutor's queue (HystrixTimer's executor
     * under load): contention, as opposed to the timer thread waiting on the queue's condition for
     * the next task, which parks on a ConditionObject.
     */
    private static boolean onTimerLock(RecordedEvent park) {
        var parked = park.getClass("parkedClass");
        return parked != null && parked.getName().startsWith("java.util.concurrent.locks.ReentrantLock")
                && park.getStackTrace() != null && park.getStackTrace().getFrames().stream().anyMatch(f ->
                f.getMethod().getType().getName().equals("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue"));
    }

    /** Tasks ever scheduled on HystrixTimer's executor: one per registered timeout listener. */
    private static long timerTasks() throws Exception {
        var field = HystrixTimer.class.getDeclaredField("executor");
        field.setAccessible(true);
        Object ref = ((java.util.concurrent.atomic.AtomicReference<?>) field.get(HystrixTimer.getInstance())).get();
        if (ref == null) {
            return 0;
        }
        var getThreadPool = ref.getClass().getMethod("getThreadPool");
        getThreadPool.setAccessible(true);
        var pool = (java.util.concurrent.ScheduledThreadPoolExecutor) getThreadPool.invoke(ref);
        return pool.getTaskCount();
    }

    @Test
    void bindingExceptionsThrowAtLeast30ExceptionsPerRequest() throws Exception {
        HttpRequest req = LabLoad.get(url(ScenarioFiles.endpointPath("binding-exceptions")));
        mode.set(Scenario.BINDING_EXCEPTIONS, false);
        double faulty = exceptionsPerRequest(req);
        mode.set(Scenario.BINDING_EXCEPTIONS, true);
        double fixed = exceptionsPerRequest(req);
        System.out.printf("binding-exceptions: NotWritablePropertyException per request faulty %.1f, fixed %.1f%n", faulty, fixed);
        assertThat(faulty).isGreaterThanOrEqualTo(30);
        assertThat(fixed).isZero();
    }

    @Test
    void converterRebuildFailsToLoadOptionalJacksonModulesOnEveryCall() throws Exception {
        // Throughput needs the fat jar (ConverterRebuildIT); the swallowed failed loads show anywhere.
        HttpRequest req = LabLoad.get(url("/api/orders/7/availability"));
        mode.set(Scenario.CONVERTER_REBUILD, false);
        double faulty = exceptionsPerRequest(req, "java.lang.ClassNotFoundException");
        mode.set(Scenario.CONVERTER_REBUILD, true);
        double fixed = exceptionsPerRequest(req, "java.lang.ClassNotFoundException");
        System.out.printf("converter-rebuild: ClassNotFoundException per request faulty %.1f, fixed %.1f%n", faulty, fixed);
        // 5 calls x (encode + decode) x 3 Jackson2ObjectMapperBuilder builds x 2 absent modules = 60
        // failed loads (one exception each outside the fat jar; more through its nested loader).
        assertThat(faulty).isGreaterThanOrEqualTo(60);
        assertThat(fixed).isZero();
    }

    private static double exceptionsPerRequest(HttpRequest req) throws Exception {
        return exceptionsPerRequest(req, "org.springframework.beans.NotWritablePropertyException");
    }

    private static double exceptionsPerRequest(HttpRequest req, String type) throws Exception {
        LabLoad.once(req);
        int n = 20;
        var rec = Jfr.record(Collections.singletonMap("jdk.JavaExceptionThrow", null), () -> {
            for (int i = 0; i < n; i++) {
                LabLoad.once(req);
            }
            return n;
        });
        long count = rec.events().stream().filter(e -> e.getClass("thrownClass") != null
                && e.getClass("thrownClass").getName().equals(type)).count();
        return count / (double) n;
    }

    @Test
    void logStormWritesAStackTracePerRequestAndCostsCpu() throws Exception {
        HttpRequest req = LabLoad.get(url("/api/orders/7/invoice"));
        Path log = Path.of("target/lab-test.log");
        mode.set(Scenario.LOG_STORM, false);
        double faultyBytes = logBytesPerRequest(req, log);
        mode.set(Scenario.LOG_STORM, true);
        double fixedBytes = logBytesPerRequest(req, log);
        // Twins alternate over two rounds and each total sums both, so a burst of load from
        // elsewhere on the machine lands on both twins rather than on one.
        long[] cpu = new long[2];
        long[] requests = new long[2];
        double[] seconds = new double[2];
        for (int round = 0; round < 3; round++) {
            for (int twin = 0; twin < 2; twin++) {
                mode.set(Scenario.LOG_STORM, twin == 1);
                long cpu0 = ServerCpu.nanos();
                LabLoad.Result r = LabLoad.closed(req, 4, Duration.ofSeconds(2));
                if (round == 0) {
                    continue; // warm-up: both paths compiled before anything is compared
                }
                cpu[twin] += ServerCpu.nanos() - cpu0;
                requests[twin] += r.requests();
                seconds[twin] += r.seconds();
                assertThat(r.errors()).isZero();
            }
        }
        double faultyCpu = cpu[0] / 1e6 / requests[0];
        double fixedCpu = cpu[1] / 1e6 / requests[1];
        System.out.printf("log-storm: log bytes/request faulty %.0f, fixed %.0f; request-thread CPU/request faulty %.3f ms,"
                        + " fixed %.3f ms (%.1fx); throughput faulty %.0f req/s, fixed %.0f req/s (%.1fx)%n",
                faultyBytes, fixedBytes, faultyCpu, fixedCpu, faultyCpu / fixedCpu,
                requests[0] / seconds[0], requests[1] / seconds[1], requests[1] / seconds[1] / (requests[0] / seconds[0]));
        assertThat(faultyBytes).isGreaterThan(10_000);
        assertThat(fixedBytes).isLessThan(400);
        // CPU per request, not throughput, is asserted: on 2 shared cores throughput swings with
        // other processes' load while the request threads' own CPU time does not. Measured
        // 1.2-1.5x with the code still partly interpreted at load average 27-34; without the fault
        // the twins run the same code and the ratio is ~1.
        assertThat(faultyCpu).isGreaterThan(1.15 * fixedCpu);
    }

    private static double logBytesPerRequest(HttpRequest req, Path log) throws Exception {
        LabLoad.once(req);
        // The file appender writes synchronously: once a request has answered, its line is in the file.
        long before = Files.size(log);
        for (int i = 0; i < 20; i++) {
            LabLoad.once(req);
        }
        return (Files.size(log) - before) / 20.0;
    }

    static double median(List<Double> values) {
        List<Double> v = new ArrayList<>(values);
        Collections.sort(v);
        return v.get(v.size() / 2);
    }
}
