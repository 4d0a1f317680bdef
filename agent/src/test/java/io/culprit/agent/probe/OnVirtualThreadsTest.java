package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The request probe on real virtual threads, one per request as a servlet container on virtual
 * threads runs them: requests are counted, those in the container are in flight, and no ring is
 * kept per request. Runs on JDK 21+ (the agent module runs it on the Temurin JDK when there is one:
 * its pom's virtual-threads execution).
 */
class OnVirtualThreadsTest {

    private static ExecutorService virtualThreadPerTask() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }

    @Test
    void requestsOnVirtualThreadsAreCountedAndInFlightWithoutARingEach() throws Exception {
        RequestProbe p = new RequestProbe(new PoolProbe());
        int requests = 5_000, held = 7;
        CountDownLatch entered = new CountDownLatch(held), release = new CountDownLatch(1);
        ExecutorService vts = virtualThreadPerTask();
        for (int i = 0; i < held; i++) {
            vts.execute(() -> {
                assertThat(VirtualThreads.is(Thread.currentThread())).isTrue();
                long start = p.containerEnter();
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                p.containerExit(start, System.nanoTime(), 200, null);
            });
        }
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.sample(1.0).get("inFlight")).as("requests now in the container").isEqualTo((double) held);
        for (int i = 0; i < requests; i++) {
            vts.execute(() -> p.containerExit(p.containerEnter(), System.nanoTime(), 200, null));
        }
        release.countDown();
        vts.shutdown();
        assertThat(vts.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        // Before any drain: a ring per request (4 KB) was kept until a reader came by.
        assertThat(p.ringsKept()).as("the log's stripes only").isLessThanOrEqualTo(4 * Runtime.getRuntime().availableProcessors());
        Map<String, Double> row = p.sample(1.0);
        assertThat(p.count()).isEqualTo(requests + held);
        assertThat(row.get("inFlight")).isEqualTo(0.0);
        assertThat(VirtualThreads.is(Thread.currentThread())).isFalse();
    }

    /**
     * From JDK 24 a virtual thread blocked entering a monitor unmounts, and JFR records nothing of
     * the wait; the JVM's thread dump shows it blocked, on which monitor, and who owns that.
     */
    @Test
    void virtualThreadsBlockedOnAMonitorAreSampledFromThreadDumps() throws Exception {
        ExecutorService vts = virtualThreadPerTask();
        assumeTrue(Runtime.version().feature() >= 24, "before JDK 24 a blocked virtual thread pins its carrier, and JFR sees it");
        Object lock = new Object();
        CountDownLatch holding = new CountDownLatch(1), release = new CountDownLatch(1);
        vts.execute(() -> hold(lock, holding, release));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 3; i++) vts.execute(() -> enter(lock));
        // What the samples hold, not the breaker (VirtualThreadLocks.MAX_DUMP_MS): a loaded machine's dump took 411 ms.
        VirtualThreadLocks sampled = new VirtualThreadLocks(1000, 10_000);
        long deadline = System.currentTimeMillis() + 30_000;
        // Each dump is one sample: until the three have blocked (a few milliseconds after they start).
        while (System.currentTimeMillis() < deadline && (sampled.isEmpty() || (long) sampled.rows().get(0).get("events") < 3)) {
            sampled.sample();
        }
        release.countDown();
        vts.shutdown();
        assertThat(vts.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(sampled.stopReason()).isNull();
        Map<String, Object> r = sampled.rows().get(0);
        assertThat(r).containsEntry("lockClass", "java.lang.Object");
        assertThat((long) r.get("events")).isGreaterThanOrEqualTo(3);
        @SuppressWarnings("unchecked") List<String> waiter = (List<String>) r.get("waiterStack"), owner = (List<String>) r.get("ownerStack");
        assertThat(waiter.get(0)).startsWith(OnVirtualThreadsTest.class.getName() + ".enter:");
        assertThat(owner).anySatisfy(f -> assertThat(f).startsWith(OnVirtualThreadsTest.class.getName() + ".hold:"));
    }

    private static void hold(Object lock, CountDownLatch holding, CountDownLatch release) {
        synchronized (lock) {
            holding.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void enter(Object lock) {
        synchronized (lock) {
            lock.hashCode();
        }
    }
}
