package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 47's blind Spring Boot ticketing back office (blind round 16): what the rules say on the
 * two faults its first answers only half named, and on their fixes.
 */
class OutsideStagePassTest {

    @Test
    void callerDataInTheLogPatternExplainsTheQueueForTheAppendersLock() {
        Finding f = new LoggingPressureRule().evaluate(Fixtures.evidence("outside-stagepass-caller-data"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("caller data in the log pattern (stagepass.gate.audit)");
        assertThat(f.summary()).containsPattern("\\d+ % of CPU samples find each event's caller")
                .containsPattern("requests wait \\d+ % of their time for the appender's lock");
        assertThat(f.fix()).startsWith("Drop caller data from the pattern").contains("AsyncAppender");
        assertThat(f.explains()).contains("lock-contention");
        // fixed: an asynchronous appender whose queue is full is lock-contention's bounded queue, not caller data
        Finding fixed = new LoggingPressureRule().evaluate(Fixtures.evidence("outside-stagepass-caller-data-fixed"));
        assertThat(fixed.culprit()).doesNotContain("caller data");
        assertThat(fixed.summary()).doesNotContain("logging lock");
    }

    @Test
    void anOptimisticLockFailureNamesItsVersionCheckRowAndTheApplicationsSave() {
        Finding f = new TransactionConflictsRule().evaluate(Fixtures.evidence("outside-stagepass-optimistic-counter"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("com.stagepass.backoffice.fulfilment.VersionedCounterReissueWriter.writeOnce:");
        assertThat(f.summary()).contains("the version check that fails is \"update sp_doc_counter")
                .contains("on com.stagepass.backoffice.fulfilment.DocumentCounter#RR-8531").contains("no request failed");
        assertThat(new TransactionConflictsRule().evaluate(Fixtures.evidence("outside-stagepass-optimistic-counter-fixed")).isProblem()).isFalse();
    }
}
