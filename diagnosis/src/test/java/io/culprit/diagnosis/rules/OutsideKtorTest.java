package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * A Ktor 3 service on its Netty engine (session 46's blind round 15, its two misses rebuilt in
 * session 47): what the rules say on runBlocking on Ktor's call threads and on suspend calls
 * awaited one after another, and on their fixes.
 */
class OutsideKtorTest {

    @Test
    void runBlockingOnKtorsCallThreadsBlocksTheirLoops() {
        Finding f = new EventLoopBlockingRule().evaluate(Fixtures.evidence("outside-ktor-run-blocking"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("ktorsvc.MainKt$main$1$1$2.invokeSuspend");
        assertThat(f.summary()).contains("runBlocking, waiting for the coroutine it runs").containsPattern("blocked 1\\.\\d s per second");
        assertThat(f.fix()).startsWith("Never call runBlocking on an event loop's thread").contains("suspend");
        // runBlocking's park is no lock: lock-contention leaves it to the event loop's rule
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-ktor-run-blocking")).isProblem()).isFalse();
        assertThat(new EventLoopBlockingRule().evaluate(Fixtures.evidence("outside-ktor-run-blocking-fixed")).isProblem()).isFalse();
    }

    @Test
    void suspendCallsAwaitedInTurnAreSequentialCallsThroughKtorsClient() {
        Finding f = new SequentialCallsRule().evaluate(Fixtures.evidence("outside-ktor-sequential-calls"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("4 targets of \"GET http://127.0.0.1:8602/partner/{*}/{n}\"")
                .contains("ktorsvc.MainKt$main$1$1$3.invokeSuspend makes them, at lines 86, 87, 88 and 89");
        // the handler that awaits them in turn, past the client wrapper every call goes through
        assertThat(f.culprit()).isEqualTo("ktorsvc.MainKt$main$1$1$3.invokeSuspend");
        assertThat(f.fix()).contains("awaitAll()");
        assertThat(new SequentialCallsRule().evaluate(Fixtures.evidence("outside-ktor-sequential-calls-fixed")).isProblem()).isFalse();
    }
}
