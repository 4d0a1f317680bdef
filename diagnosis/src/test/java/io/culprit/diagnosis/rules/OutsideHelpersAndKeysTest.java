package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 51's small services, recorded by culprit diagnose after blind round 21's two half
 * answers: an N+1 through a data-access helper every statement shares, and a Caffeine cache
 * keyed by a class without equals.
 */
class OutsideHelpersAndKeysTest {

    @Test
    void anNPlusOneThroughASharedHelperNamesTheFinderAndTheLoopAroundItNotTheHelper() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-shared-helper-n-plus-one"));
        // CRITICAL live (51 % of CPU samples under Fleet.vehicle); the fixture's trimmed profile keeps less of them.
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).startsWith("shop.Fleet.vehicle:");
        assertThat(f.summary()).contains("runs 40 times per request").containsPattern(
                "called from shop\\.Fleet\\.vehicle:\\d+ ← shop\\.Fleet\\.resolve:\\d+, through shop\\.Db\\.one, which the service's"
                        + " other statements also run through");
        assertThat(f.confirm()).contains("trace shop.Fleet resolve -n 3");
    }

    @Test
    void aCaffeineCacheKeyedByANewObjectWithoutEqualsPerRequestMissesEveryTime() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-caffeine-identity-key"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("shop.QuoteServer.quote:");
        assertThat(f.summary()).contains("the Caffeine cache that shop.QuoteServer.quote:", "is keyed by a shop.QuoteServer$QuoteKey",
                "100 % of them new objects", "every call misses and runs the loader");
        assertThat(new CacheMissesRule().evaluate(Fixtures.evidence("outside-caffeine-identity-key-fixed")).isProblem()).isFalse();
    }
}
