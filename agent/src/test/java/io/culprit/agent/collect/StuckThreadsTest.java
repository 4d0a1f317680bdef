package io.culprit.agent.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.Table;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A pool of 2 whose tasks wait on tasks of the same pool: both workers are in the table as one
 * group, with the wait's stack and lock; a thread that finished between the two dumps is not.
 */
class StuckThreadsTest {

    @Test
    void workersWaitingOnTheirOwnPoolAreStuckAndAThreadThatMovedIsNot() throws Exception {
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "report-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        CountDownLatch release = new CountDownLatch(1);
        Thread mover = new Thread(() -> await(release), "mover");
        mover.setDaemon(true);
        // Both workers hold an outer task before either submits its part: the parts can only queue.
        // Without that, the first part could start the second worker and run, and nothing would stick.
        CountDownLatch bothRunning = new CountDownLatch(2);
        try {
            for (int i = 0; i < 2; i++) {
                pool.submit(() -> {
                    bothRunning.countDown();
                    bothRunning.await();
                    Future<Integer> part = pool.submit(() -> 1);  // queued behind the two waiting workers
                    return part.get();
                });
            }
            mover.start();
            waitUntilWaitingIn("report-", 2, "java.util.concurrent.FutureTask.awaitDone");
            waitUntilWaitingIn("mover", 1, "java.util.concurrent.CountDownLatch.await");
            StuckThreads first = StuckThreads.start();
            release.countDown();
            mover.join();
            Table t = first.stop(Map.of());
            Map<String, Object> row = t.rows().stream().filter(r -> "report-#".equals(r.get("group"))).findFirst()
                    .orElseThrow(() -> new AssertionError(t.rows()));
            assertThat(row).containsEntry("threads", 2L).containsEntry("groupSize", 2L).containsEntry("state", "WAITING")
                    .containsEntry("lockClass", "java.util.concurrent.FutureTask");
            assertThat((List<?>) row.get("stack")).anyMatch(f -> f.toString().startsWith("java.util.concurrent.FutureTask.get"))
                    .anyMatch(f -> f.toString().startsWith("java.util.concurrent.ThreadPoolExecutor.runWorker"));
            assertThat(t.rows()).as("waited at the first dump, gone by the second").noneMatch(r -> "mover".equals(r.get("group")));
        } finally {
            pool.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the threads' state and place (a frame on their stack), not for a time. */
    private static void waitUntilWaitingIn(String prefix, int count, String frame) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            long waiting = Thread.getAllStackTraces().entrySet().stream()
                    .filter(e -> e.getKey().getName().startsWith(prefix) && e.getKey().getState() == Thread.State.WAITING)
                    .filter(e -> java.util.Arrays.stream(e.getValue()).anyMatch(f -> (f.getClassName() + "." + f.getMethodName()).equals(frame)))
                    .count();
            if (waiting == count) return;
            Thread.onSpinWait();
        }
        throw new AssertionError(prefix + " never waited in " + frame);
    }
}
