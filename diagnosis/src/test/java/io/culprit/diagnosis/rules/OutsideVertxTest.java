package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import org.junit.jupiter.api.Test;

/**
 * Session 42's blind Vert.x service (Vert.x Web on two event loops, the Vert.x SQL client on
 * PostgreSQL, the Vert.x Redis client, blocking calls to a partner gateway): what the rules say on
 * its faults and their fixes, in numbers.
 */
class OutsideVertxTest {

    @Test
    void aBlockingSendOnTheLoopIsJudgedByTheLoopsTimeNotTheRequests() {
        Finding f = new EventLoopBlockingRule().evaluate(Fixtures.evidence("outside-vertx-blocking-send"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        // 9 % of request time alone is under the WARN line; the loops' 1.5 s blocked per second is not.
        assertThat(f.summary()).contains("(9.4 % of request time)").contains("the loops sat blocked 1.5 s per second of the run");
        assertThat(f.fix()).contains("vertx.executeBlocking(..., false)");
    }

    @Test
    void orderedBlockingTasksCapTheArchiveCallsAtTwo() {
        Finding f = new CappedCallsRule().evaluate(Fixtures.evidence("outside-vertx-ordered-blocking"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("calls to http \"POST http://127.0.0.1:8432/archive/v1/documents\" ran 1.8 at a time on average,"
                + " about 2 slots always busy, while 15.9 requests were in flight: each request spent 20.9 ms in the call and 87 %");
        assertThat(f.explanation()).contains("TaskQueue.run");
        assertThat(f.fix()).startsWith("Run the blocking tasks unordered: vertx.executeBlocking(callable, false)");
    }

    @Test
    void unorderedTasksAndAReactiveQueryAreNoCap() {
        Finding fixed = new CappedCallsRule().evaluate(Fixtures.evidence("outside-vertx-ordered-blocking-fixed"));
        assertThat(fixed.severity()).isEqualTo(Severity.OK);
        // One SQL query of the fixed FX twin kept 1.0 in flight: a Vert.x SQL client's call holds no thread.
        Finding reactive = new CappedCallsRule().evaluate(Fixtures.evidence("outside-vertx-blocking-send-fixed"));
        assertThat(reactive.severity()).isEqualTo(Severity.OK);
        assertThat(reactive.verdict()).isNotEqualTo(Verdict.NOT_ASSESSED);
    }

    @Test
    void aTransactionAroundAnAsyncCallHoldsItsConnectionsIdle() {
        Finding f = new HeldConnectionRule().evaluate(Fixtures.evidence("outside-vertx-tx-across-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("the pool's 4 connections were lent 4 at a time (median) while their statements kept only 0.083 busy"
                + " on average (2.1 %), and 12 requests waited for one: the connections sit idle between statements, held across http"
                + " \"GET http://127.0.0.1:8432/tax/v1/quote\", whose calls (25.8 ms each) keep 3.7 in flight");
        assertThat(f.fix()).startsWith("Make http \"GET http://127.0.0.1:8432/tax/v1/quote\" outside the transaction.");
        assertThat(f.explains()).contains("pool-size");
        assertThat(new HeldConnectionRule().evaluate(Fixtures.evidence("outside-vertx-tx-across-call-fixed")).severity()).isEqualTo(Severity.OK);
    }

    @Test
    void getsOneAtATimeAreChargedTheRedisClientsOwnWork() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-vertx-redis-per-meter"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        // 16 % of request time in the GETs alone would be INFO; the client's CPU for them is not.
        assertThat(f.summary()).startsWith("redis \"GET\" runs 80 times per request").contains("16 % of request time")
                .contains("the vertx-redis-client client's own work for them");
        assertThat(f.fix()).contains("MGET");
    }
}
