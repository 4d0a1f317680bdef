package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 45's second blind service (Javalin 7 on Jetty 12, HikariCP to MariaDB, Lettuce, OkHttp):
 * what the rules say on the faults its first answers missed, and on their fixes.
 */
class OutsideJavalinTest {

    @Test
    void okHttpsPerHostLimitIsTheCapAndTheFutureWaitsAreItsQueue() {
        Finding capped = new CappedCallsRule().evaluate(Fixtures.evidence("outside-javalin-okhttp-per-host"));
        assertThat(capped.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(capped.culprit()).isEqualTo("claims.QuoteService.renewalQuote:62");
        assertThat(capped.summary()).contains("about 5 slots always busy")
                .contains("its Dispatcher runs at most 5 calls to one host at a time by default (maxRequestsPerHost)");
        assertThat(capped.fix()).contains("setMaxRequestsPerHost");
        assertThat(capped.explains()).contains("lock-contention");
        Finding lock = new LockContentionRule().evaluate(Fixtures.evidence("outside-javalin-okhttp-per-host"));
        assertThat(lock.severity()).isEqualTo(Severity.INFO);
        assertThat(lock.summary()).contains("the calls handed off run only 5 at a time");
        assertThat(lock.explains()).doesNotContain("capped-calls");
        assertThat(new CappedCallsRule().evaluate(Fixtures.evidence("outside-javalin-okhttp-per-host-fixed")).isProblem()).isFalse();
    }

    @Test
    void connectionsHeldWhileTheJvmComputesAreNotAPoolTooSmall() {
        Finding pool = new PoolSizeRule().evaluate(Fixtures.evidence("outside-javalin-amounts-per-batch"));
        assertThat(pool.severity()).isEqualTo(Severity.WARN);
        assertThat(pool.summary()).contains("the statements keep 1.4").contains("are held while this JVM computes");
        assertThat(pool.fix()).startsWith("Take the computation out of the connection's scope");
        Finding exceptions = new CaughtExceptionsRule().evaluate(Fixtures.evidence("outside-javalin-amounts-per-batch"));
        assertThat(exceptions.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(exceptions.culprit()).startsWith("claims.LegacyAmountParser.parseLenient:16");
        // Held across the partner's call instead: that is connection-held's, not computing.
        assertThat(new PoolSizeRule().evaluate(Fixtures.evidence("outside-javalin-fraud-call-in-connection")).summary())
                .doesNotContain("held while this JVM computes");
    }

    @Test
    void keysPerRequestGetsKeyssFixNotTheLargeRepliesOne() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-javalin-keys-per-queue"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("redis \"KEYS\"").contains("claims.WorkQueueService.queueFor:37");
        assertThat(f.fix()).startsWith("KEYS walks the whole keyspace");
    }
}
