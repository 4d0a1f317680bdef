package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Faults in how a Spring MVC service written outside the lab (session 21) uses the JDK, recorded by
 * {@code culprit diagnose}: a process started per request read as request-waits on "file I/O
 * (null)"; direct buffers allocated per request as "remove the System.gc() call"; a proxy class
 * defined per request as heap sizing; string concatenation in a loop and a file-tree walk per
 * request as a generic hotspot, and "no root cause found" for the walk; a connection opened per
 * request (no pool) as "no root cause found" too; calls queued in Apache HttpClient's default pool
 * as a slow dependency to speed up.
 */
class OutsideJdkFaultsTest {
    @Test
    void aProcessStartedPerRequestIsNamedWithTheWaitForItsOutput() {
        Finding f = new ProcessSpawnRule().evaluate(Fixtures.evidence("outside-process-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind7App$Api.hostname");
        assertThat(f.summary()).startsWith("blind.Blind7App$Api.hostname starts processes: 11 % of CPU samples")
                .contains("its requests wait 22.7 ms each (34 % of the mean request's 66.2 ms", "for the child's output on a pipe");
        assertThat(f.fix()).startsWith("Do not start a process per request").contains("InetAddress.getLocalHost().getHostName()");
        assertThat(f.explains()).contains("request-waits");
        Finding waits = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-process-per-request"));
        assertThat(waits.summary()).contains("on file I/O (a pipe or standard stream)");
    }

    @Test
    void aServiceThatStartsNoProcessIsRuledOut() {
        Finding f = new ProcessSpawnRule().evaluate(Fixtures.evidence("outside-string-concat"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).isEqualTo("no process started in the CPU profile.");
    }

    @Test
    void systemGcFromDirectBuffersIsNotToBeRemovedButTheBuffersReused() {
        Finding f = new GcPressureRule().evaluate(Fixtures.evidence("outside-direct-buffers"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind7App$Api.direct:53");
        assertThat(f.summary()).contains("by java.nio.Bits.reserveMemory: direct memory ran out under ByteBuffer.allocateDirect at"
                + " blind.Blind7App$Api.direct:53");
        assertThat(f.fix()).startsWith("Allocate direct buffers once and reuse them").contains("Do not add -XX:+DisableExplicitGC")
                .doesNotContain("Remove the System.gc() call");
    }

    @Test
    void aProxyClassDefinedPerRequestIsClassDefinitionNotHeapSizing() {
        Finding f = new ClassLoadingRule().evaluate(Fixtures.evidence("outside-proxy-per-request"));
        // CRITICAL at 36 % live; the fixture's profile keeps the heaviest stacks and lumps the rest,
        // which holds much of the class parsing and linking.
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind.Blind7App$Api.proxy");
        assertThat(f.summary()).startsWith("27 % of CPU samples define classes at run time")
                .contains("Metaspace filling forced 2 collection(s)");
        assertThat(f.fix()).startsWith("Build the proxy, generated class or compiled script once");
        assertThat(f.explains()).contains("gc-pressure");
        // cpu-hotspot leaves the definitions to it.
        assertThat(new CpuHotspotRule().evaluate(Fixtures.evidence("outside-proxy-per-request")).severity()).isEqualTo(Severity.OK);
    }

    @Test
    void aStringGrownWithPlusEqualsIsNamedAsQuadraticConcatenation() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-string-concat"));
        assertThat(f.culprit()).isEqualTo("blind.Blind7App$Api.concat");
        // The invokedynamic plumbing is skipped: the call named is the concatenation's own.
        assertThat(f.summary()).contains("in its call to java.lang.StringConcatHelper.newArrayWithSuffix",
                "string concatenation (each + copies the whole string so far)");
        assertThat(f.fix()).startsWith("A string grown with += (or String.concat) in a loop is copied whole at every step");
    }

    @Test
    void aFileTreeWalkedPerRequestIsTheRequestsOwnKernelCpu() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-file-walk"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind7App$Api.walk");
        assertThat(f.summary()).contains("is file-system calls (listing, stat-ing and opening files)");
        assertThat(f.fix()).startsWith("The request walks or reads the file system on every call");
    }

    @Test
    void aConnectionOpenedPerRequestIsNamedAsTheMissingPool() {
        Finding f = new DbConnectRule().evaluate(Fixtures.evidence("outside-connect-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind7App$Api.report:96");
        assertThat(f.summary()).startsWith("544 database connection(s) opened through DriverManager (\"connect"
                + " jdbc:postgresql://127.0.0.1:5432/postgres\"), 0.9 per request, 173 ms each, 84 % of request time");
        assertThat(f.fix()).startsWith("Borrow connections from a pool: HikariCP");
        assertThat(f.explains()).contains("slow-calls");
        // A service on PostgreSQL through HikariCP opens its connections through the driver: none here.
        Finding pooled = new DbConnectRule().evaluate(Fixtures.evidence("outside-unindexed-scan"));
        assertThat(pooled.severity()).isEqualTo(Severity.OK);
        assertThat(pooled.summary()).isEqualTo("no database connection opened through DriverManager in the run.");
    }

    @Test
    void callsQueuedInTheHttpClientsOwnPoolAreNotASlowDependency() {
        Finding f = new HttpClientPoolRule().evaluate(Fixtures.evidence("outside-http-client-pool"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Blind7App$Api.price:139");
        assertThat(f.summary()).startsWith("calls to \"GET http://127.0.0.1:18198/price\" waited 46.8 ms each for a connection"
                + " from the HTTP client's own pool (69 % of the call's time, 65 % of request time); the dependency itself took 21.4 ms")
                .contains("the calls in flight averaged 15.6, of which 4.9 held a connection");
        assertThat(f.fix()).startsWith("Size the client's pool to the calls in flight").contains("setMaxConnPerRoute");
        assertThat(f.explains()).contains("slow-calls");
        // Calls that never waited for the pool: no finding.
        assertThat(new HttpClientPoolRule().evaluate(Fixtures.evidence("outside-connect-per-request")).severity()).isEqualTo(Severity.OK);
    }
}
