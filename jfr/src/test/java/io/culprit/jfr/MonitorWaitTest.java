package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.Table;
import jakarta.servlet.http.HttpServlet;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A hand-made pool of one resource, checked out with synchronized/wait/notify: a request that
 * waits for it is in the {@code locks} table as a {@code wait} on the pool's class, with the
 * thread that notified it as the owner; the same wait on a thread that serves no request is not.
 */
class MonitorWaitTest {

    /** One resource; take() waits until it is given back. */
    static final class LegacyPool {
        private boolean free = true;

        synchronized void take() throws InterruptedException {
            while (!free) wait();
            free = false;
        }

        synchronized void give() {
            free = true;
            notifyAll();
        }
    }

    @Test
    void aRequestWaitingInObjectWaitIsAWaitOnThePoolNamedWithItsNotifier() throws Exception {
        LegacyPool pool = new LegacyPool();
        Path jfr = Recordings.record(() -> {
            for (int round = 0; round < 5; round++) {
                pool.take();
                CountDownLatch holding = new CountDownLatch(1);
                Thread holder = new Thread(() -> {
                    holding.countDown();
                    spin(40);  // holds the resource 40 ms, working
                    pool.give();
                }, "holder-" + round);
                holder.start();
                holding.await();
                new HttpServlet().service(() -> takeAndGive(pool));
                holder.join();
                // the same wait off a request's path: a background thread's
                pool.take();
                Thread giver = new Thread(() -> {
                    spin(40);
                    pool.give();
                }, "giver-" + round);
                giver.start();
                takeAndGive(pool);
                giver.join();
            }
        });
        Table locks = JfrFiles.read(jfr).tables(new io.culprit.jfr.collect.Observation(0, Long.MAX_VALUE / 2, 0)).get("locks");
        Map<String, Object> row = locks.rows().stream().filter(r -> "wait".equals(r.get("kind"))).findFirst()
                .orElseThrow(() -> new AssertionError(locks.rows()));
        assertThat(row.get("lockClass")).isEqualTo(LegacyPool.class.getName());
        assertThat(((Number) row.get("events")).longValue()).as("the request's five waits, not the background's").isEqualTo(5);
        assertThat((String) row.get("ownerThread")).startsWith("holder-");
    }

    private static void takeAndGive(LegacyPool pool) {
        try {
            pool.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        pool.give();
    }

    /** Busy for {@code ms}: the holder's work, which its stack shows. */
    private static void spin(long ms) {
        long end = System.nanoTime() + ms * 1_000_000;
        long x = 0;
        while (System.nanoTime() < end) x += System.nanoTime() & 7;
        if (x == 42) System.out.print("");
    }
}
