package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.flat;
import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Six faults of a Spring Boot service written outside the lab (session 18), recorded by
 * {@code culprit diagnose}: what asked for the GC or the safepoints, a connection held across an
 * HTTP call, caller data in a log pattern, XML factories built per request. Each had a verdict
 * that named a symptom ("G1 heap sizing", "non-GC safepoints", "work handed to another pool") or
 * none at all.
 */
class OutsideServicesTest {
    @TempDir Path dir;

    @Test
    void aConnectionHeldAcrossAnHttpCallIsTheCauseNotThePoolSize() {
        Finding f = new HeldConnectionRule().evaluate(Fixtures.evidence("outside-held-connection"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind3$Api.item:115");
        assertThat(f.summary()).startsWith("http \"GET http://127.0.0.1:46269/stock\" ran 59.5 s in 15.1 s while its thread held a"
                + " pooled connection (75.1 ms a call)").contains("3.9 of the 4.3 connections busy on average (92 %) were held across it;"
                + " pool of 4, 106 % utilised");
        assertThat(f.explains()).contains("pool-size", "pool-starvation");
        assertThat(f.confirm()).contains("trace blind.Blind3\\$Api item");
    }

    @Test
    void aRemoteCallOutsideTheConnectionIsNotHeld() {
        Finding f = new HeldConnectionRule().evaluate(CaseBuilder.in(dir, 10, 2)
                .series("requests", 1000, "rps", flat(10, 100))
                .series("pools", 1000, "hikariUsageMsMean", flat(10, 2), "hikariTotal", flat(10, 10), "hikariPending", flat(10, 0))
                .table("calls", row("kind", "http", "target", "GET http://x/stock", "count", 1000, "totalMs", 30000.0, "heldMs", 0.0),
                        row("kind", "sql", "target", "select 1", "count", 1000, "totalMs", 100.0, "heldMs", 0.0))
                .evidence());
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).isEqualTo("no remote call was made while its thread held a pooled connection.");
    }

    @Test
    void humongousAllocationsNameTheAllocatingCodeNotHeapSizing() {
        Finding f = new GcPressureRule().evaluate(Fixtures.evidence("outside-humongous"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind3$Api.export");
        assertThat(f.summary()).startsWith("humongous allocations (≥ 0.5 MB with 1 MB regions) started 437 of 642 collections;"
                + " 129 full collections took 5,139 ms (up to 70.5 ms each); GC pauses took 44 % of wall time");
        assertThat(f.fix()).startsWith("Stop allocating objects of half a region or more per request").contains("G1HeapRegionSize");
    }

    @Test
    void systemGcCallsAreNamedWithTheirCaller() {
        Finding f = new GcPressureRule().evaluate(Fixtures.evidence("outside-system-gc"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind3$Api.purge:99");
        assertThat(f.summary()).startsWith("System.gc() asked for 351 of 351 collections (12.5 s of 12.5 s paused), called 351 times"
                + " from blind.Blind3$Api.purge:99; 351 full collections took 12.5 s");
        assertThat(f.fix()).startsWith("Remove the System.gc() call at blind.Blind3$Api.purge:99");
    }

    @Test
    void aThreadDumpPerRequestIsNamedByOperationThreadAndCaller() {
        Finding f = new SafepointRule().evaluate(Fixtures.evidence("outside-thread-dump"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind3$Api.threads");
        assertThat(f.summary()).endsWith("; ThreadDump ran 16,027 times for 5,590 ms (100 % of the VM thread's non-GC time),"
                + " asked by http-nio-#-exec-# (100 %), from blind.Blind3$Api.threads.");
        assertThat(f.fix()).startsWith("Stop taking thread dumps on a hot path at blind.Blind3$Api.threads");
        assertThat(f.confirm()).contains("stack blind.Blind3\\$Api threads");
    }

    @Test
    void gcOperationsAreNotNamedAsTheNonGcStop() {
        assertThat(VmOperation.isGc("G1CollectForAllocation")).isTrue();
        assertThat(VmOperation.isGc("G1PauseRemark")).isTrue();
        assertThat(VmOperation.isGc("ParallelGCSystemGC")).isTrue();
        assertThat(VmOperation.isGc("ZMarkStart")).isTrue();
        assertThat(VmOperation.isGc("ThreadDump")).isFalse();
        assertThat(VmOperation.isGc("GC_HeapInspection")).isFalse();
        assertThat(VmOperation.isGc("RedefineClasses")).isFalse();
    }

    @Test
    void callerDataInTheLogPatternIsTheCostNotTheVolume() {
        Finding f = new LoggingPressureRule().evaluate(Fixtures.evidence("outside-caller-data"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("caller data in the log pattern (blind.Blind3$Api)");
        assertThat(f.summary()).contains("; 36 % of CPU samples find each event's caller (class, method, line) for the log pattern");
        assertThat(f.fix()).startsWith("Drop caller data from the pattern");
        assertThat(f.explains()).contains("caught-exceptions");
    }

    @Test
    void xmlFactoriesBuiltPerRequestAreRepeatedConstruction() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-xml-factory"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind.Blind3$Api.xml");
        assertThat(f.summary()).startsWith("12 % of CPU samples create JDK factories (most DocumentBuilderFactory.newInstance),"
                + " called from blind.Blind3$Api.xml");
    }
}
