package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 44's blind Quarkus service (Quarkus REST on Vert.x, Hibernate ORM with Panache and JDBC
 * on Agroal's pool of 5, the Quarkus Redis client, the REST client to a partner): what the rules
 * say on its faults and their fixes.
 */
class OutsideQuarkusTest {

    @Test
    void aTransactionAroundTheRestClientHoldsAgroalsPool() {
        Finding f = new HeldConnectionRule().evaluate(Fixtures.evidence("outside-quarkus-tx-across-client"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("http \"GET http://127.0.0.1:8472/partner/fees\"")
                .contains("called from org.acme.lending.service.RenewalQuoteService.quoteForLoan:47")
                .doesNotContain("_Subclass");
        assertThat(new HeldConnectionRule().evaluate(Fixtures.evidence("outside-quarkus-tx-across-client-fixed")).isProblem()).isFalse();
    }

    @Test
    void aPanacheCountPerLoanIsNamedAtTheRepositorysOwnMethod() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-quarkus-count-per-loan"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("org.acme.lending.repository.HoldRepository.countWaiting:");
        assertThat(f.summary()).contains("runs 100 times per request").contains("OverdueReportService.branchReport:51");
    }

    @Test
    void aBlockingRedisGetPerBookIsChattyNotContention() {
        Finding chatty = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-quarkus-redis-get-per-book"));
        assertThat(chatty.isProblem()).isTrue();
        assertThat(chatty.culprit()).startsWith("org.acme.lending.service.ShelfService.availability:79");
        assertThat(chatty.summary()).contains("redis \"GET\" runs 150 times per request");
        assertThat(chatty.fix()).contains("MGET");
        // Quarkus' blocking API awaits each reply on a latch: that park is the call's own wait.
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-quarkus-redis-get-per-book")).isProblem()).isFalse();
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-quarkus-redis-get-per-book-fixed")).isProblem()).isFalse();
        assertThat(new ChattyCallsRule().evaluate(Fixtures.evidence("outside-quarkus-redis-get-per-book-fixed")).isProblem()).isFalse();
    }

    @Test
    void aMapperBuiltPerMessageExplainsItsModuleScanAndTheJarLockUnderIt() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-quarkus-mapper-per-message"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("built by org.acme.lending.notify.PayloadRenderer.render:43");
        assertThat(f.explains()).contains("hot-path-classloading", "lock-contention", "serialization-cpu");
        assertThat(new ConstructionRule().evaluate(Fixtures.evidence("outside-quarkus-mapper-per-message-fixed")).isProblem()).isFalse();
    }

    @Test
    void patternsCompiledPerRecordAreNamedAndTheFixedSearchOnlyMatches() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-quarkus-regex-per-record"));
        assertThat(f.culprit()).isEqualTo("org.acme.lending.catalogue.CatalogueSearchService.search");
        assertThat(f.summary()).contains("compiles the patterns again (Pattern.compile)");
        assertThat(f.fix()).startsWith("Compile each pattern once");
        Finding fixed = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-quarkus-regex-per-record-fixed"));
        assertThat(fixed.summary()).doesNotContain("Pattern.compile");
    }
}
