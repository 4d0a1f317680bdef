package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Every record written is folded exactly once, whether the reader drains it or its writer does
 * when its ring is full, and a writer's own records reach the sink in the order it wrote them.
 */
class EventLogTest {

    private static final int THREADS = 4;
    private static final int EACH = 20 * EventLog.CAPACITY;

    /** Sums by writer: count, sum of sequence numbers, records out of order. */
    private final long[][] seen = new long[THREADS][3];
    private final long[] lastSeq = new long[THREADS];
    private final Object lock = new Object();
    private final EventLog log = new EventLog(lock, this::fold, 1);

    private void fold(long[] records, int n) {
        for (int i = 0; i < n; i++) {
            int writer = (int) records[i * EventLog.WORDS];
            long seq = records[i * EventLog.WORDS + 1];
            seen[writer][0]++;
            seen[writer][1] += seq;
            if (seq != lastSeq[writer] + 1) seen[writer][2]++;
            lastSeq[writer] = seq;
            assertThat(records[i * EventLog.WORDS + 2]).isEqualTo(seq * 3);
            assertThat(records[i * EventLog.WORDS + 3]).isEqualTo(-seq);
        }
    }

    @Test
    void everyRecordIsFoldedOnceWhileTheReaderAndFullRingsDrainConcurrently() throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < THREADS; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                long[] ring = log.newRing();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long seq = 1; seq <= EACH; seq++) log.put(ring, writer, seq, seq * 3, -seq);
            });
            t.start();
            writers.add(t);
        }
        Thread reader = new Thread(() -> {
            while (!done.get()) log.drainAll();
        });
        reader.start();
        go.countDown();
        for (Thread t : writers) t.join();
        done.set(true);
        reader.join();
        log.drainAll();
        for (int w = 0; w < THREADS; w++) {
            assertThat(seen[w][0]).as("records of writer %d", w).isEqualTo(EACH);
            assertThat(seen[w][1]).isEqualTo((long) EACH * (EACH + 1) / 2);
            assertThat(seen[w][2]).as("out of order").isZero();
        }
    }

    @Test
    void aThreadsOwnWordsAreCountedWhileItLivesAndItsRingGoesWithIt() throws Exception {
        int word = EventLog.USER;
        CountDownLatch set = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            long[] ring = log.newRing();
            ring[word] = 1;
            log.put(ring, 0, 1, 3, -1);
            set.countDown();
            try {
                release.await();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        set.await();
        assertThat(log.countAbove(word)).isEqualTo(1);
        release.countDown();
        t.join();
        log.drainAll();
        assertThat(seen[0][0]).as("a dead thread's last records are still folded").isEqualTo(1);
        assertThat(log.countAbove(word)).as("and then its ring is dropped").isZero();
    }

    /**
     * Threads that each write a few records and end (a container on virtual threads runs a
     * request per thread) write through light rings into shared stripes: every record is folded
     * once and in its writer's order, while some writers drain full stripes themselves, and the
     * reader's registry holds the stripes, not a ring per writer.
     */
    @Test
    void lightRingsShareStripesAndEveryRecordIsStillFoldedOnceInOrder() throws Exception {
        int writers = 400, each = 3 * EventLog.CAPACITY / 2;
        long[][] byWriter = new long[writers][3];
        long[] last = new long[writers];
        EventLog shared = new EventLog(lock, (records, n) -> {
            for (int i = 0; i < n; i++) {
                int w = (int) records[i * EventLog.WORDS];
                long seq = records[i * EventLog.WORDS + 1];
                byWriter[w][0]++;
                byWriter[w][1] += seq;
                if (seq != last[w] + 1) byWriter[w][2]++;
                last[w] = seq;
            }
        }, 1);
        AtomicBoolean done = new AtomicBoolean();
        Thread reader = new Thread(() -> {
            while (!done.get()) shared.drainAll();
        });
        reader.start();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        for (int w = 0; w < writers; w++) {
            int writer = w;
            pool.execute(() -> {
                long[] ring = shared.newRing(true);
                assertThat(shared.isLight(ring)).isTrue();
                for (long seq = 1; seq <= each; seq++) shared.put(ring, writer, seq, 0, 0);
            });
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        done.set(true);
        reader.join();
        shared.drainAll();
        for (int w = 0; w < writers; w++) {
            assertThat(byWriter[w][0]).as("records of writer %d", w).isEqualTo(each);
            assertThat(byWriter[w][1]).isEqualTo((long) each * (each + 1) / 2);
            assertThat(byWriter[w][2]).as("out of order").isZero();
        }
        assertThat(shared.ringCount()).as("rings the reader keeps").isLessThanOrEqualTo(4 * Runtime.getRuntime().availableProcessors());
        assertThat(shared.isLight(shared.newRing(false))).isFalse();
    }
}
