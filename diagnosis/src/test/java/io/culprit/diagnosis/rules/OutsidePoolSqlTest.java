package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Spring MVC services written outside the lab on PostgreSQL through pools other than HikariCP,
 * recorded by {@code culprit diagnose}: an order page that reads its 40 lines, then each line's
 * product by its id; their fixed twins read the page in one join.
 * <ul>
 * <li>Commons DBCP2 (session 26, 8 connections). The agent timed SQL only at HikariCP's proxies,
 * so this N+1 read "No root cause found" (its calls table held no SQL).
 * <li>c3p0 (session 27, 10 connections), SQL timed at whatever implements JDBC. Before, its calls
 * table held no SQL and the verdict was lock-contention WARN on c3p0's own pool
 * ({@code BasicResourcePool.awaitAvailable}: each of the 41 statements a request runs checks a
 * connection out), a symptom of the N+1, which is now named and that wait a contributor.
 * </ul>
 */
class OutsidePoolSqlTest {

    @Test
    void anNPlusOneThroughDbcpIsNamedWithItsStatementAndTheApplicationsCaller() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-dbcp-n-plus-one"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App.order:42");
        assertThat(f.summary()).startsWith("sql \"SELECT name, price FROM blind15_product WHERE id = ?\" runs 40 times per request"
                + " (305,640 calls, 0.2 ms each), 45 % of request time; called from blind.App.order:42");
    }

    @Test
    void anNPlusOneThroughC3p0IsNamedAndItsPoolsWaitContributes() {
        Evidence ev = Fixtures.evidence("outside-c3p0-n-plus-one");
        Finding f = new ChattyCallsRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App.order:59");
        assertThat(f.summary()).startsWith("sql \"SELECT name, price FROM blind16_product WHERE id = ?\" runs 40 times per request"
                + " (475,600 calls, 0.2 ms each), 59 % of request time; called from blind.App.order:59");
        Diagnosis.Result r = Diagnosis.run(CaseFile.open(Fixtures.dir("outside-c3p0-n-plus-one")));
        assertThat(r.top().orElseThrow().id()).isEqualTo("chatty-calls");
        assertThat(r.finding("lock-contention").orElseThrow().summary()).contains("com.mchange.v2.resourcepool.BasicResourcePool (wait");
    }

    @Test
    void oneJoinLeavesNoRepeatedCall() {
        assertThat(new ChattyCallsRule().evaluate(Fixtures.evidence("outside-c3p0-join")).severity()).isEqualTo(Severity.OK);
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-dbcp-join"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).startsWith("no call target repeated 10 or more times per request");
    }
}
