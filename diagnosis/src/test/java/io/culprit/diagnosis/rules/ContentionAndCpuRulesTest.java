package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.flat;
import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Locks, CPU, thread oversubscription, logging and serialization: severity and text. */
class ContentionAndCpuRulesTest {
    @TempDir Path dir;

    /**
     * A service outside the lab hands 4 remote lookups per request to a pool of 2 and joins them:
     * the requests wait on the futures, and the pool is the bottleneck, which the fix must size.
     */
    @Test
    void requestsWaitingOnFuturesOfAFullPoolAreTheHandOffWithThePoolsNumbers() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-executor-queue"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("on java.util.concurrent.FutureTask (park,", "waiting for work handed to other threads",
                "waiters at blind.BlindApp$Api.fanout:70", "the application's executors had all 2 threads busy in 94 % of 16 windows");
        assertThat(f.fix()).startsWith("The pool the requests hand their tasks to is full");
        // The lab's Hystrix pools are not full: its timer-lock verdict keeps the hand-off fix without pool sizing.
        Finding timer = new LockContentionRule().evaluate(Fixtures.evidence("timer-lock-log-storm"));
        assertThat(timer.summary()).doesNotContain("executors");
    }

    @Test
    void lockContentionNamesTheOwnerFrame() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("timer-lock-log-storm"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("threads spent 1,230 s blocked (46 % of request time) on java.util.concurrent.locks.ReentrantLock$NonfairSync"
                + " (park, 180,000 events), held at com.netflix.hystrix.util.HystrixTimer.addTimerListener:113 by http-nio-8080-exec-17,"
                + " waiters at com.netflix.hystrix.util.HystrixTimer.addTimerListener:113 ← com.example.shop.cache.LocalCacheCommand.run;"
                + " next ch.qos.logback.core.ConsoleAppender (30 s, waiters at ch.qos.logback.core.OutputStreamAppender.subAppend:230).");
        assertThat(f.culprit()).isEqualTo("com.netflix.hystrix.util.HystrixTimer.addTimerListener:113");
        // Totals come from the whole table, the event count from the top lock's row, the runner-up from its own row.
        assertThat(f.numbers()).containsExactly(num("1,230 s", "tables/locks"), num("46 %", "tables/locks"),
                num("180,000", "tables/locks#0"), num("30 s", "tables/locks#1"));
    }

    private static Finding.NumberRef num(String text, String ref) {
        return new Finding.NumberRef(text, ref);
    }

    @Test
    void aLatchWaitIsNamedAsAHandOffWithTheCallPathIntoIt() {
        var ev = CaseBuilder.in(dir, 10, 2).table("locks",
                row("lockClass", "java.util.concurrent.CountDownLatch$Sync", "kind", "park", "events", 8000, "blockedMs", 30_000,
                        "waiterStack", List.of("jdk.internal.misc.Unsafe.park", "java.util.concurrent.CountDownLatch.await:230",
                                "rx.internal.operators.BlockingOperatorToFuture$2.get:101", "com.netflix.hystrix.HystrixCommand$4.get:423",
                                "com.netflix.hystrix.HystrixCommand.execute:344", "com.acme.shop.ProductController.product:37",
                                "org.springframework.web.servlet.DispatcherServlet.doDispatch:1089"))).evidence();
        Finding f = new LockContentionRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).isEqualTo("threads spent 30 s blocked (3 threads blocked on average) on java.util.concurrent.CountDownLatch$Sync"
                + " (park, 8,000 events), waiting for work handed to other threads, waiters at rx.internal.operators.BlockingOperatorToFuture$2.get:101"
                + " ← com.netflix.hystrix.HystrixCommand$4.get:423 ← com.acme.shop.ProductController.product:37.");
        assertThat(f.explanation()).startsWith("Request threads hand work to another pool");
        // No lock to take off the path: the advice is not to hand off, and the confirmation is where threads wait.
        assertThat(f.fix()).startsWith("Run work that neither blocks nor calls out on the request thread").doesNotContain("lock-free");
        assertThat(f.confirm()).endsWith("\"stack rx.internal.operators.BlockingOperatorToFuture\\$2 get -n 40\"").doesNotContain("thread -b");
    }

    @Test
    void aHandOffWhoseTasksWaitOnASocketNamesThatWait() {
        Finding f = new LockContentionRule().evaluate(handOffWithTaskWaits(dir, 2000, 80_000));
        assertThat(f.summary()).endsWith("; the tasks handed off waited on the socket to 10.0.0.7:8443 at com.acme.Quotes.fetch"
                + " (2,000 waits, 80 s in all, JFR's I/O events over 5 ms).");
        assertThat(f.fix()).startsWith("The requests wait for tasks that wait in turn on the socket to 10.0.0.7:8443 at com.acme.Quotes.fetch");
        assertThat(f.culprit()).isEqualTo("com.acme.Quotes.fetch");
        assertThat(f.confirm()).contains("trace com.acme.Quotes fetch -n 5");

        // A task wait that is a small part of the hand-off is not what the requests wait for.
        Finding g = new LockContentionRule().evaluate(handOffWithTaskWaits(dir.resolve("small"), 200, 20_000));
        assertThat(g.summary()).doesNotContain("tasks handed off");
        assertThat(g.fix()).startsWith("Run work that neither blocks").contains("on a new thread per task");
    }

    /** Requests parked 100 s on CompletableFuture joins, and tasks that waited {@code waitMs} on one socket. */
    private static Evidence handOffWithTaskWaits(Path in, int waits, double waitMs) {
        List<String> waiter = List.of("jdk.internal.misc.Unsafe.park", "java.util.concurrent.CompletableFuture$Signaller.block:1864",
                "java.util.concurrent.CompletableFuture.join:2117", "com.acme.Quotes.get:40",
                "org.springframework.web.servlet.DispatcherServlet.doDispatch:1089");
        return CaseBuilder.in(in, 10, 2)
                .table("locks", row("lockClass", "java.util.concurrent.CompletableFuture$Signaller", "kind", "park", "events", 2000,
                        "blockedMs", 100_000, "waiterStack", waiter))
                .table("task-waits", row("kind", "socket", "target", "10.0.0.7:8443", "site", "com.acme.Quotes.fetch", "events", waits,
                        "waitMs", waitMs, "maxMs", 60.0))
                .evidence();
    }

    @Test
    void aClassLoaderLockIsExplainedByTheLookupsAndNamesWhoLoads() {
        List<String> waiter = List.of("java.lang.ClassLoader.loadClass:588", "org.springframework.boot.loader.net.protocol.jar.JarUrlClassLoader.loadClass:104",
                "java.lang.Class.forName0", "java.lang.Class.forName:467", "org.springframework.util.ClassUtils.forName:284",
                "org.springframework.http.converter.json.Jackson2ObjectMapperBuilder.registerWellKnownModulesIfAvailable:880",
                "com.acme.client.Codec.converters:46");
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2)
                .table("locks", row("lockClass", "java.lang.Object", "kind", "monitor", "events", 900, "blockedMs", 40_000,
                        "ownerStack", waiter, "waiterStack", waiter))
                .tableWithMeta("classloading", java.util.Map.of("requests", 1000), row("kind", "class-miss", "name", "com.fasterxml.jackson.datatype.jdk8.Jdk8Module",
                        "count", 60_000, "caller", "org.springframework.util.ClassUtils.forName:284"));
        Finding lock = new LockContentionRule().evaluate(cb.evidence());
        assertThat(lock.culprit()).isEqualTo("org.springframework.util.ClassUtils.forName:284");
        assertThat(lock.summary()).contains("the lock is taken inside class or resource lookup");
        assertThat(new ClassLoadingRule().evaluate(cb.evidence()).explains()).contains("lock-contention");
        var result = io.culprit.diagnosis.Diagnosis.run(cb.caseFile());
        assertThat(result.top().orElseThrow().id()).isEqualTo("hot-path-classloading");
    }

    @Test
    void threadDumpsThatStoppedEarlySayWhySoNoWaitIsTakenForNone() {
        var ev = CaseBuilder.in(dir, 10, 2).table("locks")
                .tableWithMeta("vthread-locks", java.util.Map.of(LockContentionRule.SAMPLING_STOPPED, "a thread dump took 260 ms"))
                .evidence();
        assertThat(new LockContentionRule().evaluate(ev).summary()).isEqualTo("no lock contention recorded. The thread dumps that"
                + " count virtual threads' monitor waits stopped early (a thread dump took 260 ms): those waits are counted only up"
                + " to then.");
        assertThat(new LockContentionRule().evaluate(CaseBuilder.in(dir.resolve("b"), 10, 2).table("locks")
                .tableWithMeta("vthread-locks", java.util.Map.of()).evidence()).summary()).isEqualTo("no lock contention recorded.");
    }

    @Test
    void theSelectorsOwnWakeupHandshakeIsNotContention() {
        var ev = CaseBuilder.in(dir, 10, 2).table("locks", row("lockClass", "java.lang.Object", "kind", "monitor", "events", 300,
                "blockedMs", 40_000, "waiterStack", List.of("sun.nio.ch.EPollSelectorImpl.clearInterrupt:262",
                        "sun.nio.ch.SelectorImpl.select:141", "org.apache.tomcat.util.net.NioEndpoint$Poller.run:773"))).evidence();
        Finding f = new LockContentionRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).isEqualTo("only the event loop's selector handshake blocked.");
    }

    @Test
    void withoutRequestTimingsBlockedThreadsOnAverageDecide() {
        var ev = CaseBuilder.in(dir, 10, 2).table("locks", row("lockClass", "x.Cache", "kind", "monitor", "events", 100,
                "blockedMs", 25_000, "waiterStack", List.of("java.lang.Object.wait", "x.Cache.get:10"))).evidence();
        Finding f = new LockContentionRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).isEqualTo("threads spent 25 s blocked (2.5 threads blocked on average) on x.Cache (monitor, 100 events), waiters at x.Cache.get:10.");
    }

    @Test
    void cpuSaturationNamesTheHottestFrame() {
        Finding f = new CpuSaturationRule().evaluate(Fixtures.evidence("converter-rebuild"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("machine CPU 99 % at p90 of 1 CPU(s), this JVM 94 %; hottest frame"
                + " java.util.zip.ZipFile$Source.getEntryPos (12 % self).");
        assertThat(new CpuSaturationRule().evaluate(Fixtures.evidence("healthy")).severity()).isEqualTo(Severity.OK);
    }

    @Test
    void manyWorkersRotatingFewRequestsAreNotOversubscription() {
        java.util.Map<String, Object>[] rows = new java.util.Map[13];
        for (int i = 0; i < rows.length; i++) rows[i] = row("thread", "exec-" + i, "avgUser", 0.04, "avgSystem", 0.01);
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2).series("cpu", 1000, "machineTotal", flat(10, 0.95)).table("thread-cpu", rows);
        assertThat(new ThreadOversubscriptionRule().evaluate(cb.evidence()).severity()).isEqualTo(Severity.WARN);
        cb.series("requests", 1000, "rps", flat(10, 500), "inFlight", flat(10, 4));
        Finding f = new ThreadOversubscriptionRule().evaluate(cb.evidence());
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).endsWith("; only 4 requests in flight.");
    }

    @Test
    void safepointsStretchedByOtherProcessesAreOnlyInfo() {
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2).series("safepoints", 1000, "totalMs", flat(10, 40));
        assertThat(new SafepointRule().evaluate(cb.evidence()).severity()).isEqualTo(Severity.WARN);
        cb.series("cpu", 1000, "machineTotal", flat(10, 0.99), "jvmUser", flat(10, 0.08), "jvmSystem", flat(10, 0.02));
        Finding f = new SafepointRule().evaluate(cb.evidence());
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).contains("while other processes saturated the CPU");
    }

    @Test
    void aClosedModelLoadIsMeantToSaturateTheCpu() {
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2).series("cpu", 1000, "machineTotal", flat(10, 0.98), "jvmUser", flat(10, 0.7),
                "jvmSystem", flat(10, 0.06));
        assertThat(new CpuSaturationRule().evaluate(cb.evidence()).severity()).isEqualTo(Severity.CRITICAL);
        cb.loadJson("\"plan\":{\"model\":\"closed\"}");
        Finding f = new CpuSaturationRule().evaluate(cb.evidence());
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).isEqualTo("machine CPU 98 % at p90 of 2 CPU(s), this JVM 76 % under a closed-model load, which runs"
                + " the service at its capacity.");
    }

    @Test
    void onePlainLinePerRequestIsNoisyButMinor() {
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2).table("logging", row("level", "WARN", "logger", "com.acme.Invoices",
                "events", 19_000, "withStackTrace", 0, "appenderMs", 1_060));
        Finding f = new LoggingPressureRule().evaluate(cb.evidence());
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).startsWith("1,900 log events/s, 0 with a stack trace/s, 106 ms in appenders per second (5.3 % of 2 CPU(s))");
    }

    @Test
    void aMachineBusyWithOtherProcessesIsOnlyInfo() {
        var ev = CaseBuilder.in(dir, 10, 2).series("cpu", 1000, "machineTotal", flat(10, 0.97), "jvmUser", flat(10, 0.25),
                "jvmSystem", flat(10, 0.05)).evidence();
        Finding f = new CpuSaturationRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).isEqualTo("machine CPU 97 % at p90 of 2 CPU(s), this JVM 30 %: mostly other processes, not this JVM.");
    }

    @Test
    void aFullContainerPoolOnABusyCpuIsOversubscribed() {
        Finding f = new ThreadOversubscriptionRule().evaluate(Fixtures.evidence("row-lock-prototype-beans"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).contains("container pool 100 of 100 busy at 80 % CPU", "= 100 requests in flight for 100 threads");
    }

    @Test
    void aFullPoolOnAnIdleCpuIsNotOversubscription() {
        Finding f = new ThreadOversubscriptionRule().evaluate(Fixtures.evidence("gc-pool-starvation"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).contains("container pool 200 of 200 busy at 58 % CPU");
    }

    @Test
    void manyRunnableThreadsPerCpuAreCritical() {
        var ev = CaseBuilder.in(dir, 10, 2).series("threads", 1000, "runnable", flat(10, 20)).evidence();
        Finding f = new ThreadOversubscriptionRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("20 runnable threads on 2 CPU(s) (10 per CPU).");
    }

    @Test
    void manyLukewarmThreadsFromJfrAreOversubscription() {
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2).series("cpu", 1000, "machineTotal", flat(10, 0.9));
        var rows = new java.util.ArrayList<java.util.Map<String, Object>>();
        for (int i = 0; i < 12; i++) rows.add(row("thread", "http-nio-exec-" + i, "avgUser", 0.035, "avgSystem", 0.005, "maxTotal", 0.1));
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object>[] arr = rows.toArray(new java.util.Map[0]);
        Finding f = new ThreadOversubscriptionRule().evaluate(cb.table("thread-cpu", arr).evidence());
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).isEqualTo("12 threads busy (≥ 5.0 % of a core each) on 2 CPU(s), the hottest at 8.0 % of a core,"
                + " machine CPU 90 %: threads time-slice the cores.");
    }

    @Test
    void nonGcSafepointsAreTheirOwnPause() {
        var ev = CaseBuilder.in(dir, 10, 2).series("safepoints", 1000, "totalMs", flat(10, 60), "count", flat(10, 30))
                .series("gc", 1000, "pauseSumMs", flat(10, 10)).evidence();
        Finding f = new SafepointRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).isEqualTo("safepoints stopped the JVM 600 ms in 10 s, 500 ms of it outside GC (5.0 % of wall time).");
        assertThat(f.numbers()).extracting(Finding.NumberRef::text).containsExactly("600 ms", "10 s", "500 ms", "5.0 %");
        assertThat(f.numbers()).extracting(Finding.NumberRef::ref).containsOnly("series/safepoints#totalMs");
    }

    @Test
    void failedRequestsNameTheEscapedException() {
        var ev = CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", flat(10, 100), "errors", flat(10, 8))
                .table("exceptions", row("type", "x.TimeoutException", "site", "x.Pool.get:7", "count", 80, "caught", false)).evidence();
        Finding f = new RequestErrorsRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("80 of 1,000 requests failed (8.0 %); top escaped exception at x.TimeoutException at x.Pool.get:7.");
        assertThat(new RequestErrorsRule().symptom()).isTrue();
    }

    @Test
    void stackTraceStormsAreLoggingPressure() {
        Finding f = new LoggingPressureRule().evaluate(Fixtures.evidence("timer-lock-log-storm"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).isEqualTo("1,120 log events/s, 120 with a stack trace/s, 320 ms in appenders per second (8.0 % of 4 CPU(s));"
                + " most stack traces at ERROR from com.example.shop.web.ErrorAdvice.");
    }

    @Test
    void appenderWallTimeIsNotCpuWhenAProfileSaysOtherwise() {
        // One plain line per request, threads queueing for the appender's lock: 10.5 % of the machine
        // in appender wall time, 3.4 % of CPU samples in logging (log-storm's fixed twin, measured).
        Finding f = new LoggingPressureRule().evaluate(plainLinesWithProfile(dir, 34));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).isEqualTo("1,100 log events/s, 0 with a stack trace/s, 210 ms in appenders per second (wall time),"
                + " logging frameworks in 3.4 % of CPU samples.");
        assertThat(f.numbers()).contains(num("3.4 %", "profiles/cpu.collapsed"));

        // The same appender time with logging hot in the profile is pressure, and names who logs.
        Finding h = new LoggingPressureRule().evaluate(plainLinesWithProfile(dir.resolve("hot"), 150));
        assertThat(h.severity()).isEqualTo(Severity.WARN);
        assertThat(h.summary()).endsWith("logging frameworks in 15 % of CPU samples; most events at WARN from x.InvoiceController.");
    }

    /** 1,100 plain WARN lines/s with 2.1 s of appender wall time in 10 s, and {@code inAppender} of 1,000 cpu samples in logback. */
    private static Evidence plainLinesWithProfile(Path dir, int inAppender) {
        return CaseBuilder.in(dir, 10, 2)
                .table("logging", row("level", "WARN", "logger", "x.InvoiceController", "events", 11_000,
                        "withStackTrace", 0, "appenderMs", 2_100))
                .file("profiles/cpu.collapsed", "x.Thread.run;x.InvoiceController.get;ch.qos.logback.core.OutputStreamAppender.append "
                        + inAppender + "\n" + "x.Thread.run;x.InvoiceController.get;x.Orders.find " + (1000 - inAppender) + "\n").evidence();
    }

    @Test
    void withoutALoggingProbeTheProfileShowsLoggingCost() {
        var ev = CaseBuilder.in(dir, 10, 2).table("cpu-hotspots",
                row("frame", "ch.qos.logback.classic.spi.ThrowableProxy.<init>", "selfShare", 0.02, "totalShare", 0.22),
                row("frame", "com.example.Foo.bar", "selfShare", 0.5, "totalShare", 0.9)).evidence();
        Finding f = new LoggingPressureRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("ch.qos.logback.classic.spi.ThrowableProxy.<init>");
        assertThat(f.summary()).startsWith("logging frameworks in 22 % of CPU samples (top ch.qos.logback.classic.spi.ThrowableProxy.<init>)");
    }

    @Test
    void oneExecutionSampleInASerializerIsNotAVerdict() {
        // A lightly loaded service (the idle-resource-scan scenario: 9 requests in 12 s) gave JFR one
        // execution sample, in UTF8JsonGenerator.flush, and serialization-cpu read it as 100 % of CPU.
        var ev = CaseBuilder.in(dir, 10, 2).tableWithMeta("cpu-hotspots", java.util.Map.of("samples", 1),
                row("frame", "com.fasterxml.jackson.core.json.UTF8JsonGenerator.flush", "selfShare", 1.0, "totalShare", 1.0)).evidence();
        Finding f = new SerializationCpuRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).isEqualTo("only 1 CPU sample: too few to weigh serialization.");
        var enough = CaseBuilder.in(dir.resolve("enough"), 10, 2).tableWithMeta("cpu-hotspots", java.util.Map.of("samples", 40),
                row("frame", "com.fasterxml.jackson.core.json.UTF8JsonGenerator.flush", "selfShare", 0.5, "totalShare", 0.5)).evidence();
        assertThat(new SerializationCpuRule().evaluate(enough).severity()).isEqualTo(Severity.CRITICAL);
        // The same guard holds for every rule that reads a CPU share from the table: logging, too.
        var logged = CaseBuilder.in(dir.resolve("logged"), 10, 2).tableWithMeta("cpu-hotspots", java.util.Map.of("samples", 2),
                row("frame", "ch.qos.logback.core.OutputStreamAppender.subAppend", "selfShare", 1.0, "totalShare", 1.0)).evidence();
        assertThat(logged.cpuShare(frame -> frame.startsWith("ch.qos.logback."))).isNaN();
        assertThat(new LoggingPressureRule().evaluate(logged).severity()).isEqualTo(Severity.OK);
    }

    @Test
    void serializationCountsLibraryFramesButNotTheirConstructors() {
        var ev = CaseBuilder.in(dir, 10, 2).table("cpu-hotspots",
                row("frame", "com.fasterxml.jackson.databind.ObjectMapper.<init>", "selfShare", 0.01, "totalShare", 0.6),
                row("frame", "com.fasterxml.jackson.databind.ObjectWriter.writeValueAsBytes", "selfShare", 0.05, "totalShare", 0.25)).evidence();
        Finding f = new SerializationCpuRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).isEqualTo("com.fasterxml.jackson.databind.ObjectWriter.writeValueAsBytes is on the stack in 25 % of CPU samples (5.0 % self).");
    }

    /**
     * A service outside the lab logging two INFO lines per request to standard output, read at 64 KB/s
     * (session 29): requests wait in the console appender, behind its lock, for the pipe. It read
     * lock-contention CRITICAL on logback's ReentrantLock, with the cure for a lock in one's own code.
     */
    @Test
    void requestsWaitingForASlowLogReaderAreLoggingPressureNamingTheOutput() {
        Finding f = new LoggingPressureRule().evaluate(Fixtures.evidence("outside-stdout-slow-reader"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Shipments");
        assertThat(f.summary()).startsWith("requests spend 100 % of their time inside log appenders, waiting rather than computing")
                .contains("logging frameworks in 3.2 % of CPU samples",
                        "the appender waits to write to a pipe or standard stream (file I/O at ch.qos.logback.core.joran.spi.ConsoleTarget$1.write");
        assertThat(f.fix()).contains("neverBlock");
        assertThat(new LoggingPressureRule().evaluate(Fixtures.evidence("outside-stdout-slow-reader-fixed")).isProblem()).isFalse();
    }

    /** The same service with a blocking AsyncAppender: the full queue's waits, timed at its put, name it. */
    @Test
    void aFullAsyncAppenderQueueIsNamedAsWhereTheLoggingThreadsWait() {
        Evidence ev = Fixtures.evidence("outside-async-appender-full");
        Finding f = new LoggingPressureRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("the appender waits to write into its async queue, full: 919 waits in put() at"
                + " ch.qos.logback.core.AsyncAppenderBase.putUninterruptibly:186 for the writer behind it");
        Finding lock = new LockContentionRule().evaluate(ev);
        assertThat(lock.summary()).contains("on java.util.concurrent.ArrayBlockingQueue (park, 919 events), waiting in put() for room"
                + " in the full bounded queue, waiters at ch.qos.logback.core.AsyncAppenderBase.putUninterruptibly:186");
        assertThat(lock.fix()).startsWith("Make the consumer keep up");
    }

    /** The same on log4j2: its console's monitor, and no I/O wait in a logging frame, so the 5× margin decides. */
    @Test
    void aSlowLogReaderOnLog4j2IsLoggingPressureToo() {
        Evidence ev = Fixtures.evidence("outside-log4j2-slow-reader");
        Finding f = new LoggingPressureRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Shipments");
        assertThat(f.summary()).startsWith("requests spend 100 % of their time inside log appenders, waiting rather than computing (739 log events/s");
        assertThat(f.explains()).contains("lock-contention");
    }
}
