package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * A Spring MVC service written outside the lab (session 26) on PostgreSQL through Commons DBCP2
 * instead of HikariCP, recorded by {@code culprit diagnose} with 8 connections: an order page that
 * reads its 40 lines, then each line's product by its id. The agent timed SQL only at HikariCP's
 * proxies, so this N+1 read "No root cause found" (its calls table held no SQL); it now times
 * DBCP2's statements too. The fixed twin reads the page in one join.
 */
class OutsideDbcpSqlTest {

    @Test
    void anNPlusOneThroughDbcpIsNamedWithItsStatementAndTheApplicationsCaller() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-dbcp-n-plus-one"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App.order:42");
        assertThat(f.summary()).startsWith("sql \"SELECT name, price FROM blind15_product WHERE id = ?\" runs 40 times per request"
                + " (305,640 calls, 0.2 ms each), 45 % of request time; called from blind.App.order:42");
    }

    @Test
    void oneJoinLeavesNoRepeatedCall() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-dbcp-join"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).startsWith("no call target repeated 10 or more times per request");
    }
}
