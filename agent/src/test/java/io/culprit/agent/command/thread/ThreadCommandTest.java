package io.culprit.agent.command.thread;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.agent.command.FakeContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/** thread -b, thread <id> and bad input, in-process against threads this test arranges. */
class ThreadCommandTest {
    @Test
    void findsMonitorAndReentrantLockHoldersRankedByWaiters() throws Exception {
        Object monitor = new Object();
        ReentrantLock lock = new ReentrantLock();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(2);
        Thread monitorHolder = thread("t-monitor-holder", () -> {
            synchronized (monitor) {
                held.countDown();
                awaitQuietly(release);
            }
        });
        Thread lockHolder = thread("t-lock-holder", () -> {
            lock.lock();
            try {
                held.countDown();
                awaitQuietly(release);
            } finally {
                lock.unlock();
            }
        });
        held.await();
        Thread[] waiters = {
            thread("t-lock-waiter-1", () -> { lock.lock(); lock.unlock(); }),
            thread("t-lock-waiter-2", () -> { lock.lock(); lock.unlock(); }),
            thread("t-monitor-waiter-1", () -> { synchronized (monitor) { } }),
        };
        try {
            awaitStates(waiters);
            FakeContext text = new FakeContext(false);
            new ThreadCommand().run(List.of("-b"), text);
            assertThat(text.out.toString())
                    .startsWith("\"t-lock-holder\"")
                    .contains("holds synchronizer java.util.concurrent.locks.ReentrantLock$NonfairSync", "blocking 2 thread(s)",
                            "t-lock-waiter-1", "t-lock-waiter-2", "Locked synchronizers:")
                    .containsPattern("monitor java.lang.Object@\\w+ held by \"t-monitor-holder\" Id=\\d+, 1 waiting");

            FakeContext one = new FakeContext(true);
            new ThreadCommand().run(List.of(String.valueOf(monitorHolder.getId())), one);
            Map<?, ?> data = (Map<?, ?>) one.data.get(0);
            assertThat(data.get("name")).isEqualTo("t-monitor-holder");
            assertThat((List<?>) data.get("holds")).anySatisfy(h -> assertThat(h.toString()).startsWith("java.lang.Object@"));
        } finally {
            release.countDown();
            for (Thread t : waiters) {
                t.join(5000);
            }
            monitorHolder.join(5000);
            lockHolder.join(5000);
        }
        FakeContext none = new FakeContext(false);
        new ThreadCommand().run(List.of("-b"), none);
        assertThat(none.out.toString()).doesNotContain("t-monitor-holder", "t-lock-holder");
    }

    @Test
    void reportsADeadlockFirst() throws Exception {
        ReentrantLock a = new ReentrantLock();
        ReentrantLock b = new ReentrantLock();
        CountDownLatch bothHold = new CountDownLatch(2);
        // lockInterruptibly: the test can break the deadlock afterwards instead of leaking threads.
        Thread t1 = thread("t-dead-1", () -> crossLock(a, b, bothHold));
        Thread t2 = thread("t-dead-2", () -> crossLock(b, a, bothHold));
        try {
            awaitStates(t1, t2);
            FakeContext ctx = new FakeContext(false);
            new ThreadCommand().run(List.of("-b"), ctx);
            assertThat(ctx.out.toString()).startsWith("DEADLOCK between 2 threads:")
                    .contains("\"t-dead-1\"", "\"t-dead-2\"", "held by \"t-dead-2\"");
        } finally {
            t1.interrupt();
            t2.interrupt();
            t1.join(5000);
            t2.join(5000);
        }
    }

    private static void crossLock(ReentrantLock first, ReentrantLock second, CountDownLatch bothHold) {
        try {
            first.lockInterruptibly();
            try {
                bothHold.countDown();
                bothHold.await();
                second.lockInterruptibly();
                second.unlock();
            } finally {
                first.unlock();
            }
        } catch (InterruptedException e) {
            // released by the test
        }
    }

    @Test
    void listsThreadsInOneState() throws Exception {
        FakeContext ctx = new FakeContext(false);
        new ThreadCommand().run(List.of("--state", "runnable", "-i", "10"), ctx);
        assertThat(ctx.out.toString()).contains("%CPU").contains(Thread.currentThread().getName()).doesNotContain("WAITING ");
    }

    @Test
    void rejectsBadInput() {
        assertThatThrownBy(() -> new ThreadCommand().run(List.of("--state", "SLEEPY"), new FakeContext(false)))
                .hasMessageStartingWith("thread: unknown state 'SLEEPY'");
        assertThatThrownBy(() -> new ThreadCommand().run(List.of("abc"), new FakeContext(false)))
                .hasMessage("thread: 'abc' is not a thread id (see 'help thread')");
        assertThatThrownBy(() -> new ThreadCommand().run(List.of("987654321"), new FakeContext(false)))
                .hasMessage("thread: no live thread with id 987654321");
    }

    private static Thread thread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Bounded poll until every waiter is actually blocked or parked. */
    private static void awaitStates(Thread... threads) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            boolean all = true;
            for (Thread t : threads) {
                all &= t.getState() == Thread.State.BLOCKED || t.getState() == Thread.State.WAITING;
            }
            if (all) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("waiters never blocked");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
