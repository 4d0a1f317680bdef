package io.culprit.cli.it.targets;

import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * "holder" takes a lock and keeps it while three "waiter-N" threads queue for it. With
 * {@code -Dlock=monitor} the lock is a synchronized monitor on a {@link HotMonitor}, otherwise a
 * {@link ReentrantLock}.
 */
public final class LockTarget {
    /** A class of its own so the lock's class is recognisable in the output. */
    static final class HotMonitor {
    }

    static final HotMonitor MONITOR = new HotMonitor();
    static final ReentrantLock LOCK = new ReentrantLock();

    public static void main(String[] args) throws Exception {
        boolean monitor = "monitor".equals(System.getProperty("lock"));
        Runnable hold = monitor ? LockTarget::holdMonitor : LockTarget::holdLock;
        Targets.serve();
        Thread holder = Targets.daemon("holder", hold);
        // The holder parks only once it owns the lock, so waiters started after that always queue.
        while (holder.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        for (int i = 1; i <= 3; i++) Targets.daemon("waiter-" + i, hold);
        Targets.ready();
    }

    static void holdMonitor() {
        synchronized (MONITOR) {
            holdForever();
        }
    }

    static void holdLock() {
        LOCK.lock();
        try {
            holdForever();
        } finally {
            LOCK.unlock();
        }
    }

    // Parks while keeping the lock: the monitor is not released, unlike Object.wait().
    private static void holdForever() {
        while (true) LockSupport.parkNanos(1_000_000_000L);
    }
}
