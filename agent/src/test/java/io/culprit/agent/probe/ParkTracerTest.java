package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
import io.culprit.jfr.CulpritSettings;
import io.culprit.jfr.JfrEvidence;
import io.culprit.jfr.JfrFiles;
import io.culprit.jfr.ParkEvent;
import io.culprit.model.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * The park tracer in this JVM: three threads contend on a ReentrantLock (each holds it 3 ms), a
 * caller hands work to a pool and waits on a CountDownLatch (seed 5's shape), and the pool's worker
 * waits for that work in {@code queue.take()} between tasks. The recording gets the lock's and the
 * latch's parks as culprit's events, none of the worker's waits for work and no JFR park event, and
 * LockSupport is back to its own bytecode after the lease ends.
 */
class ParkTracerTest {

    static final ReentrantLock LOCK = new ReentrantLock();

    @Test
    void lockAndHandOffParksAreRecordedAndIdleWaitsAreNot() throws Exception {
        assumeTrue(ProbeContext.BRIDGE_ON_BOOT_PATH, ProbeContext.WHY_NO_JDK);
        List<String> original = ClassFiles.code(LockSupport.class), queueCode = ClassFiles.code(ArrayBlockingQueue.class);
        Path jfr = Files.createTempFile("culprit-parks", ".jfr");
        try (ParkTracer.Lease lease = ParkTracer.lease(ProbeContext.INST)) {
            assertThat(lease.traced()).isTrue();
            assertThat(ClassFiles.code(LockSupport.class)).isNotEqualTo(original);
            try (Recording r = new Recording(CulpritSettings.withTracedParks(CulpritSettings.settings()))) {
                r.start();
                workload();
                r.stop();
                r.dump(jfr);
            }
        }
        assertThat(ClassFiles.code(LockSupport.class)).as("LockSupport after the lease").isEqualTo(original);
        assertThat(ClassFiles.code(ArrayBlockingQueue.class)).as("ArrayBlockingQueue after the lease").isEqualTo(queueCode);

        Map<String, Integer> parksByBlocker = new HashMap<>();
        int jfrParks = 0;
        long shortest = Long.MAX_VALUE;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            String type = e.getEventType().getName();
            if (type.equals("jdk.ThreadPark")) jfrParks++;
            if (!type.equals(ParkEvent.NAME)) continue;
            RecordedClass c = e.getValue("parkedClass");
            parksByBlocker.merge(c.getName(), 1, Integer::sum);
            shortest = Math.min(shortest, e.getLong("waited"));
        }
        System.out.println("park tracer: " + parksByBlocker + ", shortest wait " + shortest + " ns, JFR parks " + jfrParks);
        assertThat(jfrParks).isZero();
        assertThat(parksByBlocker.get(ReentrantLock.class.getName() + "$NonfairSync")).isGreaterThan(10);
        assertThat(parksByBlocker.get(CountDownLatch.class.getName() + "$Sync")).isGreaterThan(10);
        // A full bounded queue's put waits for the consumer: recorded with the queue as what was parked on.
        assertThat(parksByBlocker.get(ArrayBlockingQueue.class.getName())).isGreaterThan(10);
        // Idle workers waiting in take() are not.
        assertThat(parksByBlocker.keySet()).noneMatch(c -> c.contains("ConditionObject") || c.contains("LinkedBlockingQueue"));
        assertThat(shortest).isGreaterThanOrEqualTo(ParkTracer.THRESHOLD_NS);

        JfrEvidence ev = JfrFiles.read(jfr);
        Table locks = ev.tables(ev.observed(0)).get("locks");
        int row = rowOf(locks, ReentrantLock.class.getName() + "$NonfairSync");
        assertThat(locks.text(row, "kind")).isEqualTo("park");
        // Each park waited at least the threshold, so the table's total is at least that many ms.
        assertThat(locks.number(row, "blockedMs")).isGreaterThanOrEqualTo(locks.number(row, "events"));
        // The stack starts at the park, as JFR's own event's does: not in the tracer's frames.
        assertThat(locks.text(row, "waiterStack")).startsWith("[java.util.concurrent.locks.LockSupport.park")
                .contains("ParkTracerTest.hold").doesNotContain("ParkTracer$").doesNotContain("Bridge.probe");
        int latch = rowOf(locks, CountDownLatch.class.getName() + "$Sync");
        assertThat(locks.text(latch, "waiterStack")).contains("ParkTracerTest.handOff");
        int queue = rowOf(locks, ArrayBlockingQueue.class.getName());
        assertThat(locks.text(queue, "waiterStack")).startsWith("[java.util.concurrent.ArrayBlockingQueue.put")
                .contains("ParkTracerTest.produce").doesNotContain("ParkTracer$");
        Files.deleteIfExists(jfr);
    }

    /** {@code reset} removes every weaving, the tracer's too: the lease says so, and the next lease weaves afresh. */
    @Test
    void resetRemovesTheTracerAndALaterLeaseWeavesItAgain() throws Exception {
        assumeTrue(ProbeContext.BRIDGE_ON_BOOT_PATH, ProbeContext.WHY_NO_JDK);
        List<String> original = ClassFiles.code(LockSupport.class);
        try (ParkTracer.Lease first = ParkTracer.lease(ProbeContext.INST)) {
            assertThat(first.source()).isEqualTo("culprit's park tracer");
            Instrumenter.resetAll();
            assertThat(first.traced()).isFalse();
            assertThat(first.source()).contains("reset");
            assertThat(ClassFiles.code(LockSupport.class)).isEqualTo(original);
            try (ParkTracer.Lease second = ParkTracer.lease(ProbeContext.INST)) {
                assertThat(second.traced()).isTrue();
                assertThat(ClassFiles.code(LockSupport.class)).isNotEqualTo(original);
            }
        }
        assertThat(ClassFiles.code(LockSupport.class)).isEqualTo(original);
    }

    private static void workload() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> holders = new ArrayList<>();
        for (int i = 0; i < 3; i++) holders.add(new Thread(() -> { while (!stop.get()) hold(); }, "holder-" + i));
        // A producer faster than its consumer, through a queue of one: each put waits ~3 ms for room.
        ArrayBlockingQueue<Integer> queue = new ArrayBlockingQueue<>(1);
        holders.add(new Thread(() -> { while (!stop.get()) produce(queue); }, "producer"));
        holders.add(new Thread(() -> {
            while (!stop.get() || !queue.isEmpty()) {
                LockSupport.parkNanos(3_000_000L);
                queue.poll();
            }
        }, "consumer"));
        holders.forEach(Thread::start);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);  // the observation window
            while (System.nanoTime() < end) handOff(pool);
        } finally {
            stop.set(true);
            for (Thread t : holders) t.join();
            pool.shutdownNow();
        }
    }

    static void produce(ArrayBlockingQueue<Integer> queue) {
        try {
            queue.put(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void hold() {
        LOCK.lock();
        try {
            LockSupport.parkNanos(3_000_000L);  // work done under the lock, 3 ms of it
        } finally {
            LOCK.unlock();
        }
    }

    /** The caller waits ~3 ms for the worker; the worker then waits ~3 ms in take() for the next task. */
    static void handOff(ExecutorService pool) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        pool.execute(() -> {
            LockSupport.parkNanos(3_000_000L);
            done.countDown();
        });
        done.await();
        LockSupport.parkNanos(3_000_000L);
    }

    private static int rowOf(Table t, String lockClass) {
        for (int i = 0; i < t.rows().size(); i++) {
            if (lockClass.equals(t.text(i, "lockClass"))) return i;
        }
        throw new AssertionError(lockClass + " not in the locks table: " + t.rows());
    }
}
