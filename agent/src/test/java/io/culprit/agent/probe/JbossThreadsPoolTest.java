package io.culprit.agent.probe;

import static io.culprit.agent.probe.PoolRows.max;
import static io.culprit.agent.probe.PoolRows.number;
import static io.culprit.agent.probe.PoolRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jboss.threads.EnhancedQueueExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Quarkus' worker pool, real JBoss Threads: found at its first {@code execute} after the probes
 * start, read as a container's pool (busy, queued, maximum) in the {@code pools} view and series.
 */
class JbossThreadsPoolTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void aFullWorkerPoolIsReadWithItsQueue() throws Exception {
        EnhancedQueueExecutor workers = new EnhancedQueueExecutor.Builder().setCorePoolSize(2).setMaximumPoolSize(2).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            workers.execute(() -> { });  // loads the class before the weave, as a running service has
            Probes p = Probes.ensure(ProbeContext.INST);
            for (int i = 0; i < 3; i++) {
                workers.execute(() -> {
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            Until.met(() -> number(row(p, "jboss-threads"), "active") == 2.0 && number(row(p, "jboss-threads"), "pending") == 1.0);
            assertThat(row(p, "jboss-threads")).containsEntry("total", 2.0);
            Until.met(() -> p.windows.series("pools") != null && max(p, "containerBusy") == 2.0);
            assertThat(max(p, "containerMax")).isEqualTo(2.0);
        } finally {
            release.countDown();
            workers.shutdown();
            workers.awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
