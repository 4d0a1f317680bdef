package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * A Spring MVC service written outside the lab (session 22), recorded by {@code culprit diagnose}:
 * before this session's rules, a request polling with Thread.yield and a stylesheet compiled per
 * request got the generic hotspot fix (quadratic lookups, regular expressions); a Guava RateLimiter
 * was named as Uninterruptibles.sleepUninterruptibly; a Semaphore bulkhead got "take the lock off
 * the per-request path"; a deep copy through Java serialization got the fix for parsing a payload;
 * and the stylesheet compiles, diagnosed 15 s after the service started, read as a CRITICAL leak.
 */
class OutsideWaitingAndCopyingTest {

    @Test
    void pollingWithThreadYieldIsBusyWaiting() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-busy-wait"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind8.Api.spin");
        assertThat(f.summary()).contains("98 % of it in its call to java.lang.Thread.yield",
                "that is busy-waiting (a loop that polls with Thread.yield or Thread.onSpinWait)");
        assertThat(f.explanation()).startsWith("The request waits for work done elsewhere, but on a core");
        assertThat(f.fix()).startsWith("The thread waits for another one by polling in a loop").contains("Future.get");
    }

    @Test
    void aStylesheetCompiledPerRequestIsNamedWithTheLockItsCompilerTakes() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-xslt-compile"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind8.Api.xslt");
        assertThat(f.summary()).contains("in its call to com.sun.org.apache.xalan.internal.xsltc.trax.TransformerFactoryImpl.newTransformer",
                "that is compiling an XSLT stylesheet or an XML schema",
                "the lock requests contend on most (java.lang.Class) is taken inside it");
        assertThat(f.fix()).startsWith("The stylesheet is compiled on every call").contains("factory.newTemplates(source)",
                "templates.newTransformer()");
        // The JDK's XSLTC compiles under a lock: that contention is this compile's effect, not a cause of its own.
        assertThat(f.explains()).contains("lock-contention");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-xslt-compile")).summary())
                .contains("on java.lang.Class (monitor", "held at blind8.Api.xslt:71");
    }

    /**
     * The same service 15 s after its start: the heap after GC rose 33 → 65 MB (r = 0.9) with the
     * translets' bytecode, which only an old-generation collection frees, and read as a CRITICAL
     * leak. JFR's search for paths to GC roots found 1 of the 205 survivors still reachable.
     */
    @Test
    void aRisingFloorOfUnreachableSurvivorsIsPromotedGarbageNotALeak() {
        Finding f = new HeapLeakRule().evaluate(Fixtures.evidence("outside-xslt-compile"));
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).contains("32.9 MB at its lowest in the first third of the run and 65.2 MB in the last",
                "but only 1 of the 205 object samples that survived the run is still reachable", "not a leak");
    }

    @Test
    void sleepsInsideARateLimiterAreTheServiceThrottlingItself() {
        Finding f = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-rate-limiter"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        // Guava's own sleep helper is not where the wait was decided.
        assertThat(f.culprit()).isEqualTo("blind8.Api.limited");
        assertThat(f.summary()).startsWith("request threads slept 70.6 ms per request in Thread.sleep at blind8.Api.limited: 88 %")
                .endsWith("the sleeps are a rate limiter's (RateLimiter.acquire), which let 103 requests/s through.");
        assertThat(f.fix()).startsWith("The service throttles itself: RateLimiter.acquire makes each request sleep").contains("tryAcquire");
    }

    @Test
    void aSleepThatNoRateLimiterMakesKeepsTheGenericFix() {
        Finding f = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-sleep-backoff"));
        assertThat(f.summary()).doesNotContain("rate limiter");
        assertThat(f.fix()).doesNotContain("throttles itself");
    }

    @Test
    void aSemaphoreIsABulkheadWhosePermitsAreCountedByLittlesLaw() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-semaphore-bulkhead"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind8.Api.bulkhead:55");
        // One call per request (RestTemplate on HttpURLConnection counted once), 22.2 ms, at ~80/s: ~1.8 permits busy.
        assertThat(f.summary()).contains("on java.util.concurrent.Semaphore$NonfairSync (park",
                "the permit holders call http \"GET http://127.0.0.1:18298/slow\", 22.2 ms each, 1.8 in flight on average (Little's Law)");
        assertThat(f.explanation()).startsWith("Requests wait for a permit of a Semaphore");
        assertThat(f.fix()).startsWith("The semaphore is a bulkhead that queues").contains("tryAcquire");
        assertThat(f.confirm()).contains("stack blind8.Api bulkhead");
    }

    @Test
    void aDeepCopyThroughJavaSerializationIsNamedAsACopy() {
        Finding f = new SerializationCpuRule().evaluate(Fixtures.evidence("outside-serialization-copy"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind8.Api.deepCopy");
        assertThat(f.summary()).contains("in blind8.Api.deepCopy, which copies objects by writing them with ObjectOutputStream"
                + " and reading them back with ObjectInputStream");
        assertThat(f.fix()).startsWith("A deep copy through Java serialization").doesNotContain("parses a large payload");
    }
}
