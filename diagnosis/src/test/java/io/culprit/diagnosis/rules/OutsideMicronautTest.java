package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 43's blind Micronaut service (Netty server, Micronaut Data JDBC on a pool of 5,
 * Lettuce, a declarative client to a partner): what the rules say on its faults and their fixes.
 */
class OutsideMicronautTest {

    @Test
    void aControllerOnTheLoopThatJoinsAClientsFutureBlocksTheLoops() {
        Finding f = new EventLoopBlockingRule().evaluate(Fixtures.evidence("outside-micronaut-loop-join"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("java.util.concurrent.CompletableFuture$Signaller (park, 2,747 waits) at"
                + " com.boxoffice.catalog.EventPricingService.price:48").contains("the loops sat blocked 1.9 s per second");
        assertThat(new EventLoopBlockingRule().evaluate(Fixtures.evidence("outside-micronaut-loop-join-fixed")).isProblem()).isFalse();
    }

    @Test
    void aJoinOnTheDeclarativeClientsFutureIsThatCallsWaitNotAHandOff() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-micronaut-loop-join-fixed"));
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).contains("the future waited for is the asynchronous http \"@Client PartnerClient.fxQuote\"")
                .contains("the requests wait for that dependency's answer");
    }

    @Test
    void aTransactionAcrossTheDeclarativeClientHoldsThePool() {
        Finding f = new HeldConnectionRule().evaluate(Fixtures.evidence("outside-micronaut-tx-across-client"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("http \"@Client PartnerClient.assess\" ran 90.7 s in 20.1 s while its thread held a pooled"
                + " connection (16 ms a call); called from com.boxoffice.hold.HoldService.place:48");
        assertThat(f.culprit()).startsWith("com.boxoffice.hold.HoldService.place");
    }

    @Test
    void aMapperBuiltByItsBuilderIsChargedToTheApplicationsCaller() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-micronaut-mapper-per-receipt"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("built by com.boxoffice.receipt.ReceiptSigner.canonicalJson:47");
    }

    @Test
    void aCacheableKeyedByAnObjectWithoutEqualsMissesEveryCall() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-micronaut-identity-cache-key"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("the cache key of com.boxoffice.report.SalesReportService.summarize is built from a"
                + " com.boxoffice.report.SalesWindow (1 a request), which keeps Object's equals and hashCode").contains("31 %");
        assertThat(f.fix()).startsWith("Give SalesWindow equals and hashCode");
        assertThat(f.explains()).contains("pool-size");
        assertThat(new CacheMissesRule().evaluate(Fixtures.evidence("outside-micronaut-identity-cache-key-fixed")).isProblem()).isFalse();
    }
}
