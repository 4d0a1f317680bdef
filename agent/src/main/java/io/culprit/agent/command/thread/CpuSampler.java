package io.culprit.agent.command.thread;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-thread CPU over an interval: two readings of each thread's CPU time, {@code ms} apart.
 * A thread born during the interval counts all its CPU time; one that died is dropped.
 */
final class CpuSampler {
    /** One thread's share of the interval. */
    static final class Usage {
        final ThreadInfo info;
        final double percent; // of one core
        final long cpuNanos;  // total, since the thread started

        Usage(ThreadInfo info, double percent, long cpuNanos) {
            this.info = info;
            this.percent = percent;
            this.cpuNanos = cpuNanos;
        }
    }

    private CpuSampler() {
    }

    /** Every live thread, busiest first. */
    static List<Usage> sample(long intervalMs) throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM cannot measure per-thread CPU time");
        }
        if (!mx.isThreadCpuTimeEnabled()) {
            mx.setThreadCpuTimeEnabled(true); // on by default in HotSpot; cheap when on
        }
        Map<Long, Long> before = cpuTimes(mx, mx.getAllThreadIds());
        long t0 = System.nanoTime();
        Thread.sleep(intervalMs); // the measurement window itself
        long wall = Math.max(1, System.nanoTime() - t0);
        long[] ids = mx.getAllThreadIds();
        Map<Long, Long> after = cpuTimes(mx, ids);
        ThreadInfo[] infos = mx.getThreadInfo(ids, 0);
        List<Usage> result = new ArrayList<>();
        for (ThreadInfo ti : infos) {
            Long now = ti == null ? null : after.get(ti.getThreadId());
            if (now == null || now < 0) {
                continue;
            }
            long delta = now - before.getOrDefault(ti.getThreadId(), 0L);
            result.add(new Usage(ti, 100.0 * delta / wall, now));
        }
        result.sort(Comparator.comparingDouble((Usage u) -> u.percent).reversed());
        return result;
    }

    private static Map<Long, Long> cpuTimes(ThreadMXBean mx, long[] ids) {
        Map<Long, Long> m = new HashMap<>();
        if (mx instanceof com.sun.management.ThreadMXBean) {
            long[] times = ((com.sun.management.ThreadMXBean) mx).getThreadCpuTime(ids);
            for (int i = 0; i < ids.length; i++) {
                m.put(ids[i], times[i]);
            }
        } else {
            for (long id : ids) {
                m.put(id, mx.getThreadCpuTime(id));
            }
        }
        return m;
    }
}
