package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 34's service outside the lab: requests waiting on an {@code @Async} method's future,
 * with Spring Boot's default executor (8 core threads, no maximum, an unbounded queue). The agent
 * read "no maximum" as a cached pool and left it out of the executors' series, so the requests'
 * hand-off looked like one to a pool with room: "no root cause found", with half of every request
 * spent queued. An unbounded queue caps a pool at its core threads.
 *
 * <p>Session 35's: the same hand-off (3 tasks of 20 ms per request), on Spring Boot's executor and
 * on the application's own, with the agent's table {@code executors}: the verdict names the pool
 * that was full and the setting that sizes it, where a maximum behind an unbounded queue never applies.
 */
class OutsideAsyncPoolTest {

    @Test
    void requestsQueuedBehindSpringsDefaultAsyncExecutorAreNamed() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-async-default-pool"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("b6.App$Api.later:68");
        assertThat(f.summary()).contains("waiting for work handed to other threads")
                .endsWith("the application's executors had all 8 threads busy in 95 % of 21 windows, 7.2 tasks queued on average.");
        assertThat(f.fix()).startsWith("The pool the requests hand their tasks to is full, and the tasks queue");
    }

    @Test
    void withThreadsEnoughTheHandOffIsNoLongerAProblem() {
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-async-default-pool-fixed")).isProblem()).isFalse();
    }

    @Test
    void theFullExecutorIsNamedWithTheSettingThatSizesIt() {
        Finding spring = new LockContentionRule().evaluate(Fixtures.evidence("outside-async-task-executor"));
        assertThat(spring.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(spring.summary()).endsWith("the full one is the executor whose threads are named task-N (Spring Boot's"
                + " applicationTaskExecutor, @Async's default): 8 core threads behind an unbounded queue.");
        assertThat(spring.fix()).contains("raise spring.task.execution.pool.core-size (8 now)")
                .contains("spring.task.execution.pool.max-size never applies");

        Finding own = new LockContentionRule().evaluate(Fixtures.evidence("outside-own-executor-unbounded"));
        assertThat(own.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(own.summary()).contains("all 4 threads busy")
                .endsWith("the full one is the executor whose threads are named enrichExecutor-N: 4 core threads behind an unbounded queue.");
        assertThat(own.fix()).contains("it never runs more than its 4 core threads: its maximum of 64 applies only once the queue is full")
                .doesNotContain("spring.task");
        assertThat(own.numbers()).extracting(Finding.NumberRef::ref).contains("tables/executors#0");
    }

    @Test
    void anExecutorWithRoomIsNotBlamed() {
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-own-executor-unbounded-fixed")).isProblem()).isFalse();
        // Without the table (an older agent's case) the verdict still reads the series, and names no executor.
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-async-default-pool")).summary()).doesNotContain("the full one");
    }
}
