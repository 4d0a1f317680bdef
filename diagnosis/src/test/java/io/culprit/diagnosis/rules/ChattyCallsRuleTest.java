package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The N+1 rule: one call target repeated within each request, weighed by its share of request time. */
class ChattyCallsRuleTest {
    @TempDir Path dir;

    private Evidence calls(double perRequest, double share) {
        return CaseBuilder.in(dir, 10, 2).table("calls",
                row("kind", "sql", "target", "SELECT l.product_id FROM order_lines l WHERE l.order_id = ?", "count", 40 * 900,
                        "totalMs", 7_200.0, "p99Ms", 0.9, "maxMs", 3.1, "slowCount", 0, "shareOfRequestTime", share,
                        "perRequest", perRequest, "caller", "com.acme.orders.OrderRepository.lines:41",
                        "callPath", "com.acme.orders.OrderRepository.lines:41 ← com.acme.orders.RecentOrders.list:27"),
                row("kind", "sql", "target", "SELECT o.id FROM orders o ORDER BY o.id DESC LIMIT ?", "count", 900,
                        "totalMs", 270.0, "p99Ms", 0.6, "maxMs", 1.0, "slowCount", 0, "shareOfRequestTime", 0.03,
                        "perRequest", 1.0, "caller", "com.acme.orders.OrderRepository.latest:30")).evidence();
    }

    @Test
    void aFastQueryRepeatedPerItemIsTheRootCauseWithItsCallSite() {
        Finding f = new ChattyCallsRule().evaluate(calls(40, 0.74));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.acme.orders.OrderRepository.lines:41");
        assertThat(f.summary()).isEqualTo("sql \"SELECT l.product_id FROM order_lines l WHERE l.order_id = ?\" runs 40 times per"
                + " request (36,000 calls, 0.2 ms each), 74 % of request time; called from"
                + " com.acme.orders.OrderRepository.lines:41 ← com.acme.orders.RecentOrders.list:27.");
        assertThat(f.score()).isEqualTo(0.74);
        assertThat(f.confirm()).endsWith("\"trace com.acme.orders.RecentOrders list -n 3\"");
        assertThat(f.fix()).contains("IN (...)", "JOIN FETCH");
        assertThat(f.explains()).contains("pool-starvation", "tail-latency", "cpu-saturation");
    }

    @Test
    void aFifthOfRequestTimeIsAWarning() {
        Finding f = new ChattyCallsRule().evaluate(calls(40, 0.3));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void repeatedButCheapCallsAreNotedNotBlamed() {
        Finding f = new ChattyCallsRule().evaluate(calls(40, 0.05));
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.explains()).isEmpty();
    }

    @Test
    void aFewCallsPerRequestAreADesignNotALoop() {
        Finding f = new ChattyCallsRule().evaluate(calls(5, 0.74));
        assertThat(f.verdict()).isEqualTo(Verdict.RULED_OUT);
        assertThat(f.summary()).isEqualTo("no call target repeated 10 or more times per request (most: 5 across 2 targets).");
    }

    @Test
    void aCallSiteTheAgentCouldNotPlaceFallsBackToTheStatement() {
        var ev = CaseBuilder.in(dir, 10, 2).table("calls", row("kind", "redis", "target", "GET", "count", 12_000,
                "totalMs", 3_000.0, "p99Ms", 0.5, "shareOfRequestTime", 0.6, "perRequest", 24.0, "caller", "(unknown)")).evidence();
        Finding f = new ChattyCallsRule().evaluate(ev);
        assertThat(f.culprit()).isEqualTo("GET");
        assertThat(f.summary()).doesNotContain("called from");
        assertThat(f.fix()).contains("MGET");
        assertThat(f.confirm()).endsWith("\"calls\"");
    }

    @Test
    void theRecordedHealthyServiceIsRuledOutAndACaseWithoutProbesIsNotAssessed() {
        assertThat(new ChattyCallsRule().evaluate(Fixtures.evidence("healthy")).verdict()).isEqualTo(Verdict.RULED_OUT);
        assertThat(new ChattyCallsRule().evaluate(CaseBuilder.in(dir, 10, 2).evidence()).verdict()).isEqualTo(Verdict.NOT_ASSESSED);
    }

    @Test
    void hibernatesTableIdGeneratorReadsAreCuredWithASequenceNotAJoin() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-table-id-generator"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("sql \"select tbl.gen_value from b37b_id_generator tbl where tbl...\" runs 10 times per request");
        assertThat(f.fix()).isEqualTo(ChattyCallsRule.TABLE_ID_GENERATOR_FIX);
    }
}
