package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 46's blind Spring Boot 4 service (Tomcat 11, Spring Framework 7, Jackson 3, Hibernate 7,
 * Lettuce through Spring Data Redis, RestClient on the JDK's client): what the rules say on its
 * faults and their fixes, from cases recorded by the session's agent and, where the first answers
 * came from an older one, by that agent too.
 */
class OutsideSpringBoot4Test {

    @Test
    void aCollectionFetchPagedInMemoryIsToldByHibernatesOwnWarning() {
        Finding f = new OrmCpuRule().evaluate(Fixtures.evidence("outside-boot4-paged-in-memory"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.northbridge.broker.directory.ClientDirectoryService.loadPage");
        assertThat(f.summary()).contains("Hibernate warns \"HHH90003004: firstResult/maxResults specified with collection fetch;"
                + " applying in memory\" at the statement's rate");
        assertThat(f.fix()).startsWith("Page the ids, then fetch");
        assertThat(f.explains()).contains("gc-pressure", "slow-calls");
        // An agent that did not read messages: the query logger's warnings at the statement's rate.
        Finding old = new OrmCpuRule().evaluate(Fixtures.evidence("outside-boot4-paged-in-memory-old-agent"));
        assertThat(old.summary()).contains("Hibernate's query logger warns at the statement's rate");
        assertThat(old.severity()).isEqualTo(Severity.CRITICAL);
        // The fix pages the ids in SQL: whatever Hibernate's CPU then says, nothing is paged in memory.
        assertThat(new OrmCpuRule().evaluate(Fixtures.evidence("outside-boot4-paged-in-memory-fixed")).summary())
                .doesNotContain("in memory");
    }

    @Test
    void anExecutorThatNeverGrowsPastItsCoreIsNamedAtTheMethodThatWaitsNotItsLambda() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-boot4-async-core-size"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.northbridge.broker.quotes.RenewalQuoteService.compare:32");
        assertThat(f.summary()).doesNotContain("$$Lambda").contains("2 core threads behind an unbounded queue");
        assertThat(f.fix()).contains("Raise its core size");
        assertThat(f.title()).isEqualTo("Requests wait for a full pool they hand work to");
    }

    @Test
    void aCacheKeyedByTheWholeRequestMissesEveryTime() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-boot4-statement-cache-key"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).contains("CommissionStatementController.carrierStatement");
        assertThat(new CacheMissesRule().evaluate(Fixtures.evidence("outside-boot4-statement-cache-key-fixed")).isProblem()).isFalse();
    }

    @Test
    void redisConnectionsOpenedPerCommandAreCountedOrSeenInTheProfile() {
        Finding f = new DbConnectRule().evaluate(Fixtures.evidence("outside-boot4-redis-per-command"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("com.northbridge.broker.policyview.PolicyQuickViewService.view:");
        assertThat(f.summary()).contains("Redis connection(s) opened (\"connect redis://127.0.0.1:6379 (Lettuce)\"), 3.0 per request")
                .contains("of CPU samples in their set-up and close");
        assertThat(f.fix()).contains("shareNativeConnection");
        // Recorded by an agent that counted no connects: the connection set-up in the profile, beside the commands.
        Finding old = new DbConnectRule().evaluate(Fixtures.evidence("outside-boot4-redis-per-command-old-agent"));
        assertThat(old.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(old.summary()).contains("of CPU samples open and close Redis connections").contains("3.1 Redis commands a request");
        assertThat(old.culprit()).startsWith("com.northbridge.broker.policyview.PolicyQuickViewService.view:");
        assertThat(new DbConnectRule().evaluate(Fixtures.evidence("outside-boot4-redis-per-command-fixed")).isProblem()).isFalse();
    }

    @Test
    void aRetryBackOffOnA404NamesTheRetriedMethodAndTheClientError() {
        Finding f = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-boot4-retry-on-404"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("com.northbridge.broker.screening.SanctionsScreeningClient.screen:");
        assertThat(f.summary()).contains("the back-off of a retry (org.springframework.core.retry.RetryTemplate.execute)")
                .contains("HttpClientErrorException$NotFound").contains("a client error");
        assertThat(f.fix()).startsWith("Retry only what a second attempt can change").contains("HttpClientErrorException$NotFound");
        assertThat(new RequestWaitsRule().evaluate(Fixtures.evidence("outside-boot4-retry-on-404-fixed")).isProblem()).isFalse();
    }
}
