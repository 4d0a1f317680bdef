package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults of a Spring Boot service on PostgreSQL and Redis written outside the lab (session 20),
 * recorded by {@code culprit diagnose}. A thread started per request read as a CPU hotspot with the
 * advice for quadratic lookups, and a JDK {@code HttpClient} built per request as GC pressure with
 * "-Xms equal to -Xmx"; both are now named from the threads they start.
 */
class OutsideServicesTest {
    @TempDir Path dir;

    @Test
    void aThreadStartedPerRequestIsThreadChurnThatExplainsTheHotspot() {
        Finding f = new ThreadChurnRule().evaluate(Fixtures.evidence("outside-thread-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind5App$Api.thread:147");
        assertThat(f.summary()).startsWith("0.9 thread(s) started per request (84,436 in the run); most Thread-#, 84,435 started by")
                .contains("on the request path: a new thread started per call; Thread.start in 24 % of CPU samples");
        assertThat(f.fix()).startsWith("Run the work on a shared pool");
        assertThat(f.explains()).contains("cpu-hotspot");
        // cpu-hotspot, explained, says what the method computes: starting threads.
        Finding hot = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-thread-per-request"));
        assertThat(hot.summary()).contains("in its call to java.lang.Thread.start", "that is starting threads (Thread.start)");
    }

    @Test
    void anHttpClientBuiltPerRequestIsNamedWithWhatItCosts() {
        Finding f = new ThreadChurnRule().evaluate(Fixtures.evidence("outside-http-client-per-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind5App$Api.client:135");
        assertThat(f.summary()).startsWith("2.8 thread(s) started per request").contains("HttpClient-#-Worker-#",
                "a new java.net.http.HttpClient per call", "so no connection is reused");
        assertThat(f.fix()).startsWith("Build one HttpClient and share it");
        // The heap sizing advice was the verdict: the allocation is the clients'.
        assertThat(f.explains()).contains("gc-pressure");
    }

    @Test
    void aPoolGrowingToItsSizeIsNoChurnAndAnExecutorPerCallIsNamed() {
        Finding growth = new ThreadChurnRule().evaluate(CaseBuilder.in(dir, 10, 2).tableWithMeta("thread-starts", Map.of("requests", 20_000),
                CaseBuilder.row("group", "http-nio-#-exec-#", "site", "org.apache.tomcat.util.threads.ThreadPoolExecutor.addWorker",
                        "count", 30, "requestPath", 0, "families", 1, "stack",
                        List.of("java.lang.Thread.start:809", "org.apache.tomcat.util.threads.ThreadPoolExecutor.addWorker:753"))).evidence());
        assertThat(growth.severity()).isEqualTo(Severity.OK);
        assertThat(growth.summary()).isEqualTo("30 thread(s) started in the run, 0.0015 per request: threads are pooled.");

        Finding perCall = new ThreadChurnRule().evaluate(CaseBuilder.in(dir, 10, 2).tableWithMeta("thread-starts", Map.of("requests", 2_000),
                CaseBuilder.row("group", "pool-#-thread-#", "site", "java.util.concurrent.ThreadPoolExecutor.addWorker",
                        "count", 400, "requestPath", 400, "families", 400, "stack",
                        List.of("java.lang.Thread.start:809", "java.util.concurrent.ThreadPoolExecutor.addWorker:945",
                                "java.util.concurrent.ThreadPoolExecutor.execute:1353",
                                "java.util.concurrent.AbstractExecutorService.submit:140", "shop.Reports.render:42",
                                "jakarta.servlet.http.HttpServlet.service:564"))).evidence());
        assertThat(perCall.severity()).isEqualTo(Severity.WARN);
        assertThat(perCall.culprit()).isEqualTo("shop.Reports.render:42");
        assertThat(perCall.summary()).contains("in 400 distinct pools: a new executor per call");
        assertThat(perCall.fix()).startsWith("Build the executor once and share it");
    }

    @Test
    void aRowLockHeldAcrossAnHttpCallNamesTheCall() {
        // PostgreSQL's lock waits are on the server: the client sees a slow SELECT ... FOR UPDATE.
        Finding f = new DbRowLockRule().evaluate(Fixtures.evidence("outside-row-lock-across-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind5App$Stock.reserve:82");
        assertThat(f.summary()).startsWith("locking statement \"select qty from stock where sku = ? for update\" takes 76 % of request time")
                .contains("the same code then calls http \"GET http://127.0.0.1:18199/quote\" at blind.Blind5App$Stock.reserve:82 (61.3 ms a call)"
                        + " while holding its connection: the row stays locked across that call");
        assertThat(f.fix()).startsWith("Take the remote call out of the transaction that locks the row");
        assertThat(f.explains()).contains("connection-held", "slow-calls");
    }

    @Test
    void aSleepInAMethodWhoseCallFailsIsARetryBackOff() {
        // 80 requests/s for 10 s at 100 ms; each slept 98 ms after its call failed half the time.
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", CaseBuilder.flat(10, 80), "meanMs",
                CaseBuilder.flat(10, 100));
        cb.table("request-waits", CaseBuilder.row("kind", "sleep", "target", "Thread.sleep", "site", "shop.Quotes.fetch", "events", 800,
                "waitMs", 78_400.0, "maxMs", 400.0, "stack", List.of("java.lang.Thread.sleep", "shop.Quotes.fetch:31")));
        cb.table("calls", CaseBuilder.row("kind", "http", "target", "GET http://partner/quote", "count", 1_600, "errors", 800,
                "totalMs", 3_200.0, "p99Ms", 4.0, "shareOfRequestTime", 0.04, "caller", "shop.Quotes.fetch:27"));
        Finding f = new RequestWaitsRule().evaluate(cb.evidence());
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("slept 98 ms per request in Thread.sleep at shop.Quotes.fetch",
                "; the same method's http \"GET http://partner/quote\" failed 800 of 1,600 calls (50 %): the sleeps are a retry's back-off");
        assertThat(f.fix()).startsWith("The dependency fails, and each failure costs the request a sleep");
        // A sleep beside a call that never fails is a plain sleep.
        CaseBuilder ok = CaseBuilder.in(dir.resolve("ok"), 10, 2).series("requests", 1000, "rps", CaseBuilder.flat(10, 80), "meanMs",
                CaseBuilder.flat(10, 100));
        ok.table("request-waits", CaseBuilder.row("kind", "sleep", "target", "Thread.sleep", "site", "shop.Quotes.fetch", "events", 800,
                "waitMs", 78_400.0, "maxMs", 400.0, "stack", List.of("java.lang.Thread.sleep", "shop.Quotes.fetch:31")));
        ok.table("calls", CaseBuilder.row("kind", "http", "target", "GET http://partner/quote", "count", 800, "errors", 0,
                "totalMs", 1_600.0, "p99Ms", 4.0, "shareOfRequestTime", 0.02, "caller", "shop.Quotes.fetch:27"));
        Finding plain = new RequestWaitsRule().evaluate(ok.evidence());
        assertThat(plain.summary()).doesNotContain("back-off");
        assertThat(plain.fix()).startsWith("Do not sleep on a request thread");
    }

    @Test
    void anNPlusOneThroughHibernateProxiesNamesTheLazyLoadAndTheLoopThatTouchesIt() {
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", CaseBuilder.flat(10, 500), "meanMs",
                CaseBuilder.flat(10, 16));
        cb.table("calls", CaseBuilder.row("kind", "sql", "target", "select c1_0.id,c1_0.name from customers c1_0 where c1_0.id=?",
                "count", 250_000, "perRequest", 50.0, "totalMs", 59_000.0, "p99Ms", 1.6, "shareOfRequestTime", 0.74,
                "caller", "shop.Customer$HibernateProxy.getName:-1",
                "callPath", "shop.Customer$HibernateProxy.getName:-1 ← shop.OrderController.list:102"));
        Finding f = new ChattyCallsRule().evaluate(cb.evidence());
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.OrderController.list:102");
        assertThat(f.summary()).contains("; each is a lazy load of Customer, a Hibernate proxy that getName() initialises, at"
                + " shop.OrderController.list:102");
        assertThat(f.fix()).startsWith("The association to Customer is LAZY and read for every item");
        assertThat(f.confirm()).contains("trace shop.OrderController list -n 3");
    }

    @Test
    void aParallelStreamPerRequestGetsTheStreamsCureNotTheGenericOne() {
        String request = "java.lang.Thread.run;jakarta.servlet.http.HttpServlet.service;shop.Api.total;java.util.stream.LongPipeline.sum;"
                + "java.util.stream.AbstractPipeline.evaluate;java.util.stream.ReduceOps$ReduceOp.evaluateParallel;"
                + "java.util.concurrent.ForkJoinTask.invoke;java.util.stream.AbstractTask.compute;shop.Api.lambda$total$0";
        String worker = "java.util.concurrent.ForkJoinWorkerThread.run;java.util.concurrent.ForkJoinTask.doExec;"
                + "java.util.stream.AbstractTask.compute;shop.Api.lambda$total$0";
        Finding f = new CpuHotspotRule().evaluate(CaseBuilder.in(dir, 10, 2)
                .file("profiles/cpu.collapsed", request + " 700\n" + worker + " 100\nx.Other.run;x.Other.idle 200\n").evidence());
        assertThat(f.culprit()).isEqualTo("shop.Api.total");
        assertThat(f.summary()).contains("it runs as a parallel stream, its parts on ForkJoinPool.commonPool");
        assertThat(f.fix()).startsWith("Use a sequential stream on a request path");
    }

    @Test
    void springsSimpleAsyncExecutorIsNamedAsSuch() {
        Finding f = new ThreadChurnRule().evaluate(CaseBuilder.in(dir, 10, 2).tableWithMeta("thread-starts", Map.of("requests", 1_000),
                CaseBuilder.row("group", "SimpleAsyncTaskExecutor-#", "site", "org.springframework.core.task.SimpleAsyncTaskExecutor.doExecute",
                        "count", 1_000, "requestPath", 1_000, "families", 1_000, "stack",
                        List.of("java.lang.Thread.start:809", "org.springframework.core.task.SimpleAsyncTaskExecutor.doExecute:283",
                                "org.springframework.core.task.SimpleAsyncTaskExecutor.execute:256", "shop.Mailer.send:40",
                                "jakarta.servlet.http.HttpServlet.service:564"))).evidence());
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.Mailer.send:40");
        assertThat(f.summary()).contains("Spring's SimpleAsyncTaskExecutor, which starts a new thread for every task");
        assertThat(f.fix()).startsWith("Give @Async and the code that submits a ThreadPoolTaskExecutor");
    }

    @Test
    void entitiesLoadedToSumOneColumnAreTheOrmsCpu() {
        // Was "no root cause found": the query is quick, and no application method computes.
        Finding f = new OrmCpuRule().evaluate(Fixtures.evidence("outside-orm-hydration"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind5App$Reports.revenue");
        assertThat(f.summary()).startsWith("Hibernate's own work holds ").contains("most of it building entities from the result set",
                "dirty-checking at flush, for blind.Blind5App$Reports.revenue, whose query is \"select po1_0.id,po1_0.customer_id");
        assertThat(f.fix()).startsWith("The query loads more entities than the request needs");
        // A service with no ORM, and one whose lazy loads are an N+1 (the loop explains the ORM's work).
        assertThat(new OrmCpuRule().evaluate(Fixtures.evidence("outside-thread-per-request")).severity()).isEqualTo(Severity.OK);
        assertThat(new ChattyCallsRule().evaluate(CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", CaseBuilder.flat(10, 500))
                .table("calls", CaseBuilder.row("kind", "sql", "target", "select c.name from customers c where c.id=?", "count", 250_000,
                        "perRequest", 50.0, "totalMs", 59_000.0, "p99Ms", 1.6, "shareOfRequestTime", 0.74,
                        "caller", "shop.Customer$HibernateProxy.getName:-1",
                        "callPath", "shop.Customer$HibernateProxy.getName:-1 ← shop.OrderController.list:102")).evidence()).explains())
                .contains("orm-cpu");
    }

    @Test
    void repeatedInsertsAreBatchedNotJoinedAndTheConfirmTracesTheLoop() {
        Finding f = new ChattyCallsRule().evaluate(CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", CaseBuilder.flat(10, 170))
                .table("calls", CaseBuilder.row("kind", "sql", "target", "insert into events(id, kind, payload) values (?, ?, ?)",
                        "count", 170_000, "perRequest", 100.0, "totalMs", 83_000.0, "p99Ms", 2.2, "shareOfRequestTime", 0.98,
                        "caller", "shop.Api.importEvents:162",
                        "callPath", "shop.Api.importEvents:162 ← jakarta.servlet.http.HttpServlet.service:564")).evidence());
        assertThat(f.fix()).startsWith("Send the writes as one batch: JdbcTemplate.batchUpdate");
        // The servlet one frame out is not the loop: the loop is the call site's own method.
        assertThat(f.confirm()).contains("trace shop.Api importEvents -n 3");
    }

    @Test
    void blockingCallsOnReactorNettysLoopAreNamedWithTheirCure() {
        // Both read "no root cause found": no call was slow, and a loop's deep stack hides the request entry.
        Finding jdbc = new EventLoopBlockingRule().evaluate(Fixtures.evidence("outside-webflux-jdbc"));
        assertThat(jdbc.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(jdbc.culprit()).isEqualTo("blind6.Blind6App$Api.lambda$customer$0:24");
        assertThat(jdbc.summary()).startsWith("event-loop threads were blocked ").contains("per request (",
                "most in sql \"select name from customers where id = ? and pg_sleep(?) i...\"");
        assertThat(jdbc.fix()).contains("subscribeOn(Schedulers.boundedElastic())", "R2DBC");
        Finding sleep = new EventLoopBlockingRule().evaluate(Fixtures.evidence("outside-webflux-sleep"));
        assertThat(sleep.culprit()).isEqualTo("blind6.Blind6App$Api.throttled");
        assertThat(sleep.summary()).contains("most in Thread.sleep (");
        assertThat(sleep.fix()).startsWith("Never sleep on an event loop: delay with Mono.delay");
        assertThat(sleep.explains()).contains("request-waits");
        // The same query moved off the loop (the fix) blocks no loop.
        Finding fixed = new EventLoopBlockingRule().evaluate(Fixtures.evidence("outside-webflux-offloaded"));
        assertThat(fixed.severity()).isEqualTo(Severity.OK);
        assertThat(fixed.summary()).isEqualTo("no call or wait seen on an event loop's threads.");
    }

    @Test
    void aCopyOnWriteListWrittenPerRequestIsNamedWithItsCure() {
        String add = "java.lang.Thread.run;jakarta.servlet.http.HttpServlet.service;shop.Audit.record;"
                + "java.util.concurrent.CopyOnWriteArrayList.add;java.util.Arrays.copyOf";
        Finding f = new CpuHotspotRule().evaluate(CaseBuilder.in(dir, 10, 2)
                .file("profiles/cpu.collapsed", add + " 600\nx.Other.run;x.Other.idle 400\n").evidence());
        assertThat(f.culprit()).isEqualTo("shop.Audit.record");
        assertThat(f.summary()).contains("that is copy-on-write collections (each write copies the whole array)");
        assertThat(f.fix()).startsWith("A CopyOnWriteArrayList or CopyOnWriteArraySet copies its whole array");
    }

    @Test
    void aLargeResultReadPerRequestIsTheGcsCauseNotTheHeapsSize() {
        // Was "G1 heap sizing" with -Xms equal to -Xmx.
        Finding f = new GcPressureRule().evaluate(Fixtures.evidence("outside-result-set-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind5App$Api.export:191");
        assertThat(f.summary()).contains("of sampled allocation reads query results for blind.Blind5App$Api.export:191"
                + " (sql \"select id, email, name from people where id <= ?\")");
        assertThat(f.fix()).startsWith("Read less per request").contains("queryForStream");
    }

    @Test
    void aRepeatedSelectThatIsSlowOnItsOwnAlsoGetsItsPlan() {
        Finding f = new ChattyCallsRule().evaluate(CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", CaseBuilder.flat(10, 40))
                .table("calls", CaseBuilder.row("kind", "sql", "target", "select o1_0.id,o1_0.total from orders o1_0 where o1_0.customer_id=?",
                        "count", 12_000, "perRequest", 30.0, "totalMs", 78_000.0, "p99Ms", 18.7, "shareOfRequestTime", 0.96,
                        "caller", "shop.Api.bag:186", "callPath", "shop.Api.bag:186 ← jakarta.servlet.http.HttpServlet.service:564")).evidence());
        assertThat(f.fix()).startsWith("Fetch the rows in one statement").contains("Each call alone takes 6.5 ms: read its plan",
                "CREATE INDEX ON orders (customer_id)");
    }

    @Test
    void aPayloadParsedOnEveryRequestNamesTheMethodAndWhereThePayloadComesFrom() {
        // Was a Jackson frame as the culprit, with the advice for large responses.
        Finding f = new SerializationCpuRule().evaluate(Fixtures.evidence("outside-parse-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind5App$Api.catalog");
        assertThat(f.summary()).contains("parsing for blind.Blind5App$Api.catalog, what its redis \"GET\" (1,086 calls) returns");
        assertThat(f.fix()).startsWith("The request parses a large payload each time: parse it once and keep the parsed form");
    }

    @Test
    void supplyAsyncWithoutAnExecutorOnTwoCpusIsAThreadPerTask() {
        // The starter's stack as JFR recorded it on blind5's /async (two supplyAsync per request, 2 CPUs).
        Finding f = new ThreadChurnRule().evaluate(CaseBuilder.in(dir, 15, 2).tableWithMeta("thread-starts", Map.of("requests", 43_619),
                CaseBuilder.row("group", "Thread-#", "site", "blind.Blind5App$Api.async", "count", 79_818, "requestPath", 79_818,
                        "families", 10_000, "stack", List.of("java.util.concurrent.CompletableFuture$ThreadPerTaskExecutor.execute:444",
                                "java.util.concurrent.CompletableFuture.asyncSupplyStage:1782",
                                "java.util.concurrent.CompletableFuture.supplyAsync:1989", "blind.Blind5App$Api.async:204",
                                "jdk.internal.reflect.GeneratedMethodAccessor18.invoke"))).evidence());
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind5App$Api.async:204");
        assertThat(f.summary()).startsWith("1.8 thread(s) started per request").contains("CompletableFuture's async steps without an executor");
        assertThat(f.fix()).startsWith("Pass an executor sized for the work to supplyAsync");
    }

    @Test
    void aFuturesJoinOnTheLoopIsALockWaitThatBlocksIt() {
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", CaseBuilder.flat(10, 300), "meanMs",
                CaseBuilder.flat(10, 20));
        cb.table("locks", CaseBuilder.row("lockClass", "java.util.concurrent.CompletableFuture$Signaller", "kind", "park", "events", 3_000,
                "blockedMs", 36_000.0, "eventLoop", 3_000, "waiterStack", List.of("jdk.internal.misc.Unsafe.park",
                        "java.util.concurrent.CompletableFuture.join:2117", "shop.Prices.quote:51", "reactor.core.publisher.MonoCallable.call:72")));
        Finding f = new EventLoopBlockingRule().evaluate(cb.evidence());
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.Prices.quote:51");
        assertThat(f.summary()).contains("most in waiting on java.util.concurrent.CompletableFuture$Signaller (park, 3,000 waits)");
        assertThat(f.fix()).startsWith("Never wait on an event loop");
        assertThat(f.explains()).contains("lock-contention");
    }
}
