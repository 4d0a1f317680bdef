package io.culprit.agent.command.thread;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which held locks other threads are waiting for, most waiters first. Covers both monitors
 * (threads BLOCKED entering synchronized) and java.util.concurrent locks (threads parked on an
 * AbstractOwnableSynchronizer whose exclusive owner the JVM reports). Threads in Object.wait()
 * are not contending and are not counted.
 */
final class LockContention {
    /** One contended lock. */
    static final class Contended {
        final LockInfo lock;
        final String kind; // "monitor" or "synchronizer"
        final ThreadInfo owner;
        final List<ThreadInfo> waiters = new ArrayList<>();

        Contended(LockInfo lock, String kind, ThreadInfo owner) {
            this.lock = lock;
            this.kind = kind;
            this.owner = owner;
        }
    }

    private LockContention() {
    }

    static List<Contended> find() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        ThreadInfo[] all = mx.dumpAllThreads(mx.isObjectMonitorUsageSupported(), mx.isSynchronizerUsageSupported());
        Map<Long, ThreadInfo> byId = new HashMap<>();
        for (ThreadInfo ti : all) {
            byId.put(ti.getThreadId(), ti);
        }
        Map<String, Contended> byLock = new LinkedHashMap<>();
        for (ThreadInfo ti : all) {
            LockInfo lock = ti.getLockInfo();
            ThreadInfo owner = byId.get(ti.getLockOwnerId());
            if (lock == null || owner == null) {
                continue;
            }
            String kind;
            if (ti.getThreadState() == Thread.State.BLOCKED) {
                kind = "monitor";
            } else if (holdsSynchronizer(owner, lock)) {
                kind = "synchronizer";
            } else {
                continue; // e.g. Object.wait() on a monitor someone else holds right now
            }
            String key = lock.getClassName() + "@" + lock.getIdentityHashCode();
            byLock.computeIfAbsent(key, k -> new Contended(lock, kind, owner)).waiters.add(ti);
        }
        List<Contended> result = new ArrayList<>(byLock.values());
        result.sort(Comparator.comparingInt((Contended c) -> c.waiters.size()).reversed());
        return result;
    }

    /** Threads in a deadlock (monitors or ownable synchronizers), or an empty array. */
    static ThreadInfo[] deadlocked() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[] ids = mx.isSynchronizerUsageSupported() ? mx.findDeadlockedThreads() : mx.findMonitorDeadlockedThreads();
        if (ids == null) {
            return new ThreadInfo[0];
        }
        return mx.getThreadInfo(ids, 0);
    }

    private static boolean holdsSynchronizer(ThreadInfo owner, LockInfo lock) {
        for (LockInfo held : owner.getLockedSynchronizers()) {
            if (held.getIdentityHashCode() == lock.getIdentityHashCode() && held.getClassName().equals(lock.getClassName())) {
                return true;
            }
        }
        return false;
    }
}
