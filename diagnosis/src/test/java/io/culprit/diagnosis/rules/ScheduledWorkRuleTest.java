package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * A service outside the lab (session 30) whose @Scheduled report ran 60 parallel-stream passes over
 * 4 million longs every 3 s beside its requests, and its fixed twin that runs one pass.
 */
class ScheduledWorkRuleTest {

    @Test
    void aScheduledTaskAndItsParallelPartsAreNamedAsTakingTheRequestsCores() {
        Finding f = new ScheduledWorkRule().evaluate(Fixtures.evidence("outside-scheduled-report"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind.Stock$Report.rebuild");
        assertThat(f.summary()).startsWith("the scheduled task blind.Stock$Report.rebuild ran on ")
                .contains("in its parallel stream's parts on the common pool)")
                .endsWith("busy at p90: it runs on the cores the requests wait for.");
        assertThat(f.explanation()).contains("ForkJoinPool.commonPool");
        assertThat(f.explains()).contains("cpu-saturation", "cpu-hotspot");
    }

    @Test
    void onePassEveryFewSecondsIsTooLittleToMatter() {
        Finding f = new ScheduledWorkRule().evaluate(Fixtures.evidence("outside-scheduled-report-fixed"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).endsWith("too small a share to take the requests' cores.");
    }

    @Test
    void theTaskIsTheFirstApplicationFrameBelowTheScheduler() {
        assertThat(ScheduledWorkRule.task(new String[] {"java.lang.Thread.run",
            "java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.run", "java.util.concurrent.FutureTask.runAndReset",
            "com.acme.cache.Refresher$$Lambda$12.run", "com.acme.cache.Refresher.lambda$start$0", "java.util.HashMap.put"}))
                .isEqualTo("com.acme.cache.Refresher.lambda$start$0");
        assertThat(ScheduledWorkRule.task(new String[] {"java.lang.Thread.run", "com.acme.Worker.run"})).isNull();
    }

    /** Healthy lab services and the other recorded faults run no scheduled work worth naming. */
    @Test
    void theLabsHealthyServiceHasNone() {
        assertThat(new ScheduledWorkRule().evaluate(Fixtures.evidence("timer-lock-log-storm")).severity()).isIn(Severity.OK, Severity.INFO);
    }
}
