package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AppExecutorsTest {
    @Test
    void anUnboundedQueueCapsThePoolAtItsCoreThreads() {
        // Spring Boot's applicationTaskExecutor (@Async's default): 8 core, no maximum, an unbounded queue.
        ThreadPoolExecutor spring = new ThreadPoolExecutor(8, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        ThreadPoolExecutor cached = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
        ThreadPoolExecutor bounded = new ThreadPoolExecutor(2, 4, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(10));
        try {
            assertThat(AppExecutors.threadsAtMost(spring)).isEqualTo(8);
            // Under load the queue holds tasks, and has less room than Integer.MAX_VALUE: still unbounded.
            spring.getQueue().add(() -> { });
            assertThat(AppExecutors.threadsAtMost(spring)).as("with a task queued").isEqualTo(8);
            assertThat(AppExecutors.threadsAtMost(cached)).as("a cached pool has no maximum").isEqualTo(Integer.MAX_VALUE);
            assertThat(AppExecutors.threadsAtMost(bounded)).isEqualTo(4);
        } finally {
            spring.shutdown();
            cached.shutdown();
            bounded.shutdown();
        }
    }
}
