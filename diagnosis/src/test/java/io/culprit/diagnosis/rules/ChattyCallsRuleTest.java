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

    /**
     * Blind round 21's shape: every repository runs its statement through one helper's lambda, so
     * the helper is every statement's first frame; the repeated statement's own site is past it.
     */
    @Test
    void aHelperEveryStatementRunsThroughIsPassedForTheFirstFrameOfTheRepeatedStatementsOwn() {
        String helper = "com.acme.db.JdbiRepository.lambda$one$0:33";
        var ev = CaseBuilder.in(dir, 10, 2).table("calls",
                row("kind", "sql", "target", "SELECT * FROM vehicle WHERE id = ?", "count", 30 * 900, "totalMs", 5_400.0,
                        "shareOfRequestTime", 0.6, "perRequest", 30.0, "caller", "com.acme.db.JdbiRepository.lambda$one$0:33",
                        "callPath", "com.acme.db.JdbiRepository.lambda$one$0:33 ← com.acme.fleet.VehicleRepository.findById:18",
                        "callStack", helper + " ← com.acme.fleet.VehicleRepository.findById:18 ← com.acme.fleet.BacklogService.resolve:52"
                                + " ← org.springframework.web.method.support.InvocableHandlerMethod.doInvoke:205"),
                row("kind", "sql", "target", "SELECT * FROM backlog ORDER BY due LIMIT ?", "count", 900, "totalMs", 360.0,
                        "shareOfRequestTime", 0.04, "perRequest", 1.0, "caller", "com.acme.db.JdbiRepository.lambda$list$1:41",
                        "callStack", "com.acme.db.JdbiRepository.lambda$list$1:41 ← com.acme.fleet.BacklogRepository.open:12"
                                + " ← com.acme.fleet.BacklogService.resolve:47"),
                row("kind", "sql", "target", "SELECT * FROM driver WHERE id = ?", "count", 900, "totalMs", 180.0,
                        "shareOfRequestTime", 0.02, "perRequest", 1.0, "caller", "com.acme.db.JdbiRepository.lambda$one$0:33",
                        "callStack", helper + " ← com.acme.fleet.DriverRepository.findById:22 ← com.acme.fleet.DriverService.get:15"))
                .evidence();
        Finding f = new ChattyCallsRule().evaluate(ev);
        assertThat(f.culprit()).isEqualTo("com.acme.fleet.VehicleRepository.findById:18");
        assertThat(f.summary()).contains("; called from com.acme.fleet.VehicleRepository.findById:18 ← com.acme.fleet.BacklogService.resolve:52,"
                + " through com.acme.db.JdbiRepository.lambda$one$0, which the service's other statements also run through");
        assertThat(f.confirm()).endsWith("\"trace com.acme.fleet.BacklogService resolve -n 3\"");
        // The helper's statements that part at their first frame (one's lambda and list's) share nothing with it.
        assertThat(ChattyCallsRule.sharedHelper(ev.table("calls").orElseThrow(), 1)).isZero();
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
