package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 47's blind Spring Cloud gateway (OpenFeign on Apache HttpClient 5, Resilience4j, Spring
 * Cache on Redis; blind round 17): what the rules say on the three faults its first answers missed
 * or half named, and on their fixes.
 */
class OutsideFeignTest {

    @Test
    void aSpringCacheInRedisThatStoresOnEveryReadMissesOnEveryRequest() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-feign-redis-cache-key"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("com.acme.freight.service.LaneStatsService.stats");
        assertThat(f.summary()).contains("it is kept in Redis, whose 1 GET and 1 SET a request")
                .contains("each read misses and stores a new entry");
        assertThat(f.fix()).contains("RedisCache makes the Redis key from the key object's toString()");
        assertThat(new CacheMissesRule().evaluate(Fixtures.evidence("outside-feign-redis-cache-key-fixed")).isProblem()).isFalse();
    }

    @Test
    void aLockHeldAcrossATokenCallIsNamedByTheCallEvenWhenTheHoldersStackIsCutInTheClient() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-feign-token-lock"));
        assertThat(f.culprit()).startsWith("com.acme.freight.client.CarrierTokenInterceptor.currentToken:");
        assertThat(f.summary()).contains("the lock is held across its holder's http \"POST http://127.0.0.1:9551/partner/carrier/oauth/token\"");
        assertThat(f.fix()).startsWith("Make the call outside the lock").contains("a token is fetched for about every call it authorizes");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-feign-token-lock-fixed")).isProblem()).isFalse();
    }

    @Test
    void aResilience4jBulkheadNamesTheCallItGuardsAndItsSettings() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-feign-bulkhead"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("com.acme.freight.service.QuoteService.partnerQuote:");
        assertThat(f.summary()).contains("the permit holders call http \"GET http://127.0.0.1:9551/partner/pricing/quote\"");
        assertThat(f.fix()).contains("max-concurrent-calls").contains("max-wait-duration");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-feign-bulkhead-fixed")).isProblem()).isFalse();
    }
}
