package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
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

    @Test
    void theTableNamesEachBoundedExecutorWithHowFullItWas() throws Exception {
        ThreadFactory named = r -> new Thread(r, "task-x");
        ThreadPoolExecutor full = new ThreadPoolExecutor(2, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), named);
        ThreadPoolExecutor cached = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
        ThreadPoolExecutor idle = new ThreadPoolExecutor(1, 3, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(5));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(2);
        try {
            AppExecutors executors = new AppExecutors();
            Hook hook = executors.hook();
            for (ThreadPoolExecutor e : List.of(full, cached, idle)) hook.probeEnter(0, null, e);
            for (int i = 0; i < 5; i++) full.execute(() -> {
                running.countDown();
                try {
                    release.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            Map<String, Double> row = new HashMap<>();
            executors.sample(row);
            executors.sample(row);
            assertThat(row).containsEntry("executorActive", 2.0).containsEntry("executorQueued", 3.0).containsEntry("executorMax", 5.0);

            List<Map<String, Object>> rows = executors.rows();
            assertThat(rows).as("the cached pool has no maximum to fill").hasSize(2);
            Map<String, Object> top = rows.get(0);
            assertThat(top.get("executor")).asString().contains("@");  // a factory without a name prefix: its class and the pool's identity
            assertThat(top).containsEntry("threads", 2).containsEntry("core", 2).containsEntry("max", Integer.MAX_VALUE)
                    .containsEntry("unboundedQueue", true).doesNotContainKey("queueCapacity")
                    .containsEntry("windows", 2).containsEntry("fullWindows", 2)
                    .containsEntry("activeMean", 2.0).containsEntry("queuedMean", 3.0).containsEntry("queuedMax", 3.0);
            assertThat(rows.get(1)).containsEntry("threads", 3).containsEntry("unboundedQueue", false)
                    .containsEntry("queueCapacity", 5L).containsEntry("fullWindows", 0).containsEntry("activeMean", 0.0);
        } finally {
            release.countDown();
            full.shutdown();
            cached.shutdown();
            idle.shutdown();
        }
    }
}
