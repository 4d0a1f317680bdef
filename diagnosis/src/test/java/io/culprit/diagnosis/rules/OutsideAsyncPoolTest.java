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
}
