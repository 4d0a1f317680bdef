package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A service outside the lab (session 30) that handed an audit INSERT per order to one writer thread
 * with a queue of 50 and CallerRunsPolicy, and its fixed twin that batches the inserts.
 */
class CallerRunsRuleTest {

    @Test
    void requestsRunningAFullExecutorsTasksAreNamedWithTheTaskAndTheSubmitter() {
        Finding f = new CallerRunsRule().evaluate(Fixtures.evidence("outside-caller-runs"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind.App$Transfers.audit:121");
        assertThat(f.summary()).startsWith("requests ran tasks of a full executor themselves (ThreadPoolExecutor.CallerRunsPolicy):"
                + " blind.App$Transfers.writeAudit, submitted at blind.App$Transfers.audit:121, waiting 61.9 s (20 % of request time)"
                + " in them;").endsWith("the application executors' queues held up to 51 tasks.");
        assertThat(f.fix()).startsWith("Give the work the throughput it needs instead of a bigger queue: batch it");
        assertThat(f.explains()).contains("db-row-lock");
    }

    @Test
    void aBatchingWriterLeavesNoRequestRunningTasks() {
        assertThat(new CallerRunsRule().evaluate(Fixtures.evidence("outside-caller-runs-fixed")).severity()).isEqualTo(Severity.OK);
        assertThat(new CallerRunsRule().evaluate(Fixtures.evidence("healthy")).verdict().name()).isEqualTo("NOT_ASSESSED");
    }

    @Test
    void theTaskAndItsSubmitterAreReadAcrossTheRejection() {
        List<String> leafFirst = List.of("org.postgresql.jdbc.PgStatement.execute:435", "com.acme.Audit.write:40",
                "com.acme.Audit.lambda$submit$0:30", "com.acme.Audit$$Lambda$12.run", CallerRunsRule.REJECTED + ":2037",
                "java.util.concurrent.ThreadPoolExecutor.reject:833", "java.util.concurrent.ThreadPoolExecutor.execute:1365",
                "com.acme.Audit.submit:30", "com.acme.Orders.place:12");
        assertThat(CallerRunsRule.task(leafFirst)).isEqualTo("com.acme.Audit.write:40");
        assertThat(CallerRunsRule.submitter(leafFirst)).isEqualTo("com.acme.Audit.submit:30");
    }
}
