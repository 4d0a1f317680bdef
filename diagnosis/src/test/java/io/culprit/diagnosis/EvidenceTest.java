package io.culprit.diagnosis;

import static io.culprit.diagnosis.CaseBuilder.flat;
import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvidenceTest {
    @TempDir Path dir;

    @Test
    void callsAreCountedPerLoadRequestWhenTheServiceCallsItsOwnEndpoints() {
        // 753 requests sent, 15,813 taken by the server: 15,060 of them the service's calls to its own endpoint.
        CaseBuilder cb = CaseBuilder.in(dir, 20, 2).series("requests", 2000, "rps", flat(10, 37.65), "p50Ms", flat(10, 425))
                .loadJson("\"summary\":{\"requests\":753}")
                .tableWithMeta("calls", Map.of("requests", 15813, "seconds", 21.3),
                        row("kind", "http", "target", "GET http://127.0.0.1:8103/ext/fx/rates", "count", 15060, "totalMs", 332834.0,
                                "perRequest", 0.952, "shareOfRequestTime", 0.52),
                        row("kind", "sql", "target", "select 1", "count", 753, "totalMs", 1514.7, "perRequest", 0.0476,
                                "shareOfRequestTime", 0.0024, "background", false));
        var calls = cb.evidence().table("calls").orElseThrow();
        assertThat(calls.number(0, "perRequest")).isEqualTo(20.0);
        assertThat(calls.number(0, "shareOfRequestTime")).isEqualTo(1.0);  // 332.8 s of calls in 753 × 425 ms
        assertThat(calls.number(1, "perRequest")).isEqualTo(1.0);
        assertThat(calls.number(1, "shareOfRequestTime")).isCloseTo(1514.7 / (753 * 425.0), within(1e-9));
        assertThat(Evidence.meta(calls, "requests")).isEqualTo(753.0);
        // The server taking about what the load sent: the probes' own counts stand.
        CaseBuilder same = CaseBuilder.in(dir.resolve("same"), 20, 2).series("requests", 2000, "rps", flat(10, 37.65), "p50Ms", flat(10, 425))
                .loadJson("\"summary\":{\"requests\":753}")
                .tableWithMeta("calls", Map.of("requests", 760), row("kind", "sql", "target", "select 1", "count", 7530, "totalMs", 1.0,
                        "perRequest", 9.9, "shareOfRequestTime", 0.1));
        assertThat(same.evidence().table("calls").orElseThrow().number(0, "perRequest")).isEqualTo(9.9);
    }

    @Test
    void alignsSeriesWithDifferentWindowsByTime() {
        // 1 s GC windows against 5 s request windows: each request window takes the GC window at its start.
        double[] gc = new double[10];
        for (int i = 0; i < 10; i++) gc[i] = i;
        Evidence ev = CaseBuilder.in(dir, 10, 2).series("requests", 5000, "p99Ms", new double[] {10, 20})
                .series("gc", 1000, "pauseSumMs", gc).evidence();
        double[][] pairs = ev.aligned("requests", "p99Ms", "gc", "pauseSumMs");
        assertThat(pairs).hasDimensions(2, 2);
        assertThat(pairs[1]).containsExactly(20, 5);
    }

    @Test
    void aQuotedConsoleCommandReachesTheConsoleUnchangedThroughAShell() throws Exception {
        String command = "trace a.B$Inner lambda$get$0 '#cost > 10' \"x\" `y` \\z";
        // What a user's shell hands culprit exec when the confirm line is pasted.
        Process p = new ProcessBuilder("bash", "-c", "printf %s " + Evidence.quoted(command)).start();
        String seen = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isZero();
        assertThat(seen).isEqualTo(command);
    }

    @Test
    void cpuShareCountsEachSampleOnceAndNamesTheCallerOutsideTheLibrary() throws Exception {
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2);
        cb.file("profiles/cpu.collapsed", String.join("\n",
                "java.lang.Thread.run;com.acme.InvoiceController.invoice;ch.qos.logback.classic.Logger.error;ch.qos.logback.classic.spi.ThrowableProxy.<init>_[j] 30",
                "java.lang.Thread.run;com.acme.Batch.run;ch.qos.logback.classic.Logger.info 10",
                "java.lang.Thread.run;com.acme.InvoiceController.find 60", ""));
        Evidence ev = cb.evidence();
        // Two logback frames on one stack count once: 40 of 100 samples.
        assertThat(ev.cpuShare(f -> f.startsWith("ch.qos.logback."))).isCloseTo(0.4, within(1e-9));
        assertThat(ev.cpuCaller(f -> f.startsWith("ch.qos.logback."))).isEqualTo("com.acme.InvoiceController.invoice");
        assertThat(ev.cpuShare(f -> f.equals("ch.qos.logback.classic.spi.ThrowableProxy.<init>"))).isCloseTo(0.3, within(1e-9));
    }

    /** CI, idle-resource-scan: culprit's collect stop loading Jackson out-voted the lab's own scan. */
    @Test
    void theAgentsOwnThreadsAreNotTheServicesWorkButItsHooksOnTheServicesThreadsAre() throws Exception {
        CaseBuilder cb = CaseBuilder.in(dir, 10, 2);
        cb.file("profiles/cpu.collapsed", String.join("\n",
                "java.lang.Thread.run;java.util.concurrent.ThreadPoolExecutor.runWorker;io.culprit.agent.channel.Session.runCommand;"
                        + "io.culprit.agent.collect.CollectCommand.stop;java.lang.ClassLoader.loadClass 10",
                "start_thread;java.lang.Thread.run;org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run;"
                        + "io.culprit.lab.web.WebjarResources.scan;java.lang.ClassLoader.getResource 6",
                "java.lang.Thread.run;org.apache.catalina.connector.CoyoteAdapter.service;"
                        + "io.culprit.agent.probe.ContainerHook.probeEnter 2",
                "java.lang.Thread.run;io.culprit.lab.orders.Refresher.run;java.lang.ClassLoader.getResource 2") + "\n");
        Evidence ev = cb.evidence();
        assertThat(ev.cpuProfileIfAny().orElseThrow().samples()).as("all but the agent's command thread").isEqualTo(10);
        assertThat(ev.cpuShare(f -> f.startsWith("java.lang.ClassLoader."))).isCloseTo(0.8, within(1e-9));
        assertThat(ev.cpuCaller(f -> f.startsWith("java.lang.ClassLoader."))).isEqualTo("io.culprit.lab.web.WebjarResources.scan");
    }

    @Test
    void withoutAProfileCpuShareFallsBackToTheHotspotTable() {
        Evidence ev = CaseBuilder.in(dir, 10, 2).table("cpu-hotspots", row("frame", "a.B.c", "totalShare", 0.2),
                row("frame", "a.B.d", "totalShare", 0.3)).evidence();
        assertThat(ev.cpuShare(f -> f.startsWith("a.B."))).isEqualTo(0.3);
        assertThat(ev.cpuCaller(f -> true)).isNull();
        assertThat(CaseBuilder.in(dir.resolve("empty"), 10, 2).evidence().cpuShare(f -> true)).isNaN();
    }

    @Test
    void correlationIsNaNWithoutVarianceAndOneForALine() {
        Evidence ev = CaseBuilder.in(dir, 5, 2).series("a", 1000, "x", new double[] {1, 2, 3, 4, 5}, "y", new double[] {2, 4, 6, 8, 10},
                "z", flat(5, 3)).evidence();
        assertThat(ev.correlation("a", "x", "a", "y")).isCloseTo(1.0, within(1e-9));
        assertThat(ev.correlation("a", "x", "a", "z")).isNaN();
    }

    @Test
    void perRequestFallsBackToCountOverRequests() {
        Evidence ev = CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", flat(10, 50))
                .table("exceptions", row("type", "X", "count", 1000)).evidence();
        var t = ev.table("exceptions").orElseThrow();
        assertThat(ev.requestCount()).isEqualTo(500);
        assertThat(ev.perRequest(t, 0)).isEqualTo(2.0);
        assertThat(ev.perSecond(t, 0)).isEqualTo(100.0);
    }

    @Test
    void tableMetaGivesRequestsWhenThereIsNoSeries() {
        Evidence ev = CaseBuilder.in(dir, 10, 2).tableWithMeta("locks", Map.of("requests", 400, "seconds", 8), row("count", 800)).evidence();
        assertThat(ev.requestCount()).isEqualTo(400);
        assertThat(ev.perRequest(ev.table("locks").orElseThrow(), 0)).isEqualTo(2.0);
        assertThat(ev.perSecond(ev.table("locks").orElseThrow(), 0)).isEqualTo(100.0);
        assertThat(ev.meanLatencyMs()).isNaN();
    }

    @Test
    void requestsComeFromLoadJsonWhenNotRecordedAsASeries() throws Exception {
        CaseBuilder cb = CaseBuilder.in(dir, 30, 2);
        java.nio.file.Files.writeString(dir.resolve("load.json"), "{\"format\":\"culprit-load\",\"version\":1,"
                + "\"plan\":{\"window_ms\":15000},\"windows\":["
                + "{\"start_epoch_ms\":1000,\"achieved_rps\":798.0,\"target_rps\":800.0,\"errors\":0,"
                + "\"latency_ms\":{\"p50\":3.0,\"p90\":5.0,\"p99\":48.5,\"max\":60.0,\"mean\":3.4}},"
                + "{\"start_epoch_ms\":16000,\"achieved_rps\":813.0,\"target_rps\":null,\"errors\":2,"
                + "\"latency_ms\":{\"p50\":18.0,\"p90\":300.0,\"p99\":1040.0,\"max\":1200.0,\"mean\":90.0}}]}");
        Evidence ev = cb.evidence();
        assertThat(ev.series("requests").orElseThrow().intervalMs()).isEqualTo(15000);
        assertThat(ev.column("requests", "p99Ms").orElseThrow()).containsExactly(48.5, 1040.0);
        assertThat(ev.column("requests", "targetRps").orElseThrow()[1]).isNaN();
        assertThat(ev.requestCount()).isEqualTo((798.0 + 813.0) * 15);
    }

    @Test
    void statsSkipUnmeasuredWindowsAndSplitThirds() {
        Evidence ev = CaseBuilder.in(dir, 6, 2).series("s", 1000, "v", new double[] {1, 1, Double.NaN, 5, 9, 9}).evidence();
        ColumnStats s = ev.stats("s", "v").orElseThrow();
        assertThat(s.count()).isEqualTo(5);
        assertThat(s.firstThird()).isEqualTo(1.0);
        assertThat(s.lastThird()).isEqualTo(9.0);
        assertThat(s.max()).isEqualTo(9.0);
        assertThat(ev.stats("s", "missing")).isEmpty();
    }

    @Test
    void theDatabaseIsTheProductTheDriverReportedElseTheDriverOnABlockedStack() throws Exception {
        Evidence reported = CaseBuilder.in(dir.resolve("a"), 10, 2).table("calls",
                row("kind", "sql", "target", "SELECT 1", "totalMs", 10.0, "database", "PostgreSQL"),
                row("kind", "sql", "target", "SELECT owner FROM accounts", "totalMs", 900.0, "database", "MariaDB"),
                row("kind", "http", "target", "GET http://127.0.0.1/x", "totalMs", 5000.0)).evidence();
        assertThat(reported.database()).isEqualTo(Database.MARIADB);

        Evidence blocked = CaseBuilder.in(dir.resolve("b"), 10, 2)
                .table("calls", row("kind", "sql", "target", "UPDATE t SET n = n + 1", "totalMs", 900.0))
                .table("db-waits", row("caller", "a.B.c", "method", "executeUpdate", "lockFrame", "",
                        "stack", java.util.List.of("jdk.internal.misc.Unsafe.park", "org.h2.mvstore.tx.Transaction.waitFor:1", "a.B.c:3")))
                .evidence();
        assertThat(blocked.database()).isEqualTo(Database.H2);
        assertThat(CaseBuilder.in(dir.resolve("c"), 10, 2).evidence().database()).isEqualTo(Database.UNKNOWN);
        assertThat(Database.ofProduct("Microsoft SQL Server")).isEqualTo(Database.SQLSERVER);
        assertThat(Database.ofProduct("Oracle")).isEqualTo(Database.ORACLE);
        assertThat(Database.ofProduct("H2 2.3.232 (2024-08-11)")).isEqualTo(Database.H2);
        assertThat(Database.ofProduct("MySQL 8.4.3")).isEqualTo(Database.MYSQL);
        // MySQL's driver on a MariaDB server: the name says MySQL, the version MariaDB.
        assertThat(Database.ofProduct("MySQL 5.5.5-10.11.19-MariaDB-0+deb12u1")).isEqualTo(Database.MARIADB);
    }
}
