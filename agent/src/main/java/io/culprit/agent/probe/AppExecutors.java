package io.culprit.agent.probe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * The application's {@link ThreadPoolExecutor}s, found at their first {@code execute} after the
 * probes started (Spring's ThreadPoolTaskExecutor, {@code Executors.newFixedThreadPool}, and
 * {@code submit}, which calls execute), without the application's help: the only way to find
 * instances from an attached agent, short of a heap walk, is to see them used, as Glowroot and
 * SkyWalking see executors by weaving them. An executor idle for the whole collection is not
 * found; ScheduledThreadPoolExecutor queues without calling execute and is not found either.
 * ThreadPoolExecutor is a JDK class, so the sampler calls its getters directly (no reflection).
 */
final class AppExecutors {

    static final String TPE = "java.util.concurrent.ThreadPoolExecutor";
    /** Enough for any real application; a program creating pools per task must not grow this list. */
    private static final int MAX = 64;

    final List<ThreadPoolExecutor> seen = new CopyOnWriteArrayList<>();

    Hook hook() {
        return new Hook(TPE, "execute", "(Ljava/lang/Runnable;)", Hook.ENTER | Hook.SELF) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                remember(self);
                return 0L;
            }
        };
    }

    private void remember(Object self) {
        if (!(self instanceof ThreadPoolExecutor)) return;
        for (int i = 0, n = seen.size(); i < n; i++) if (seen.get(i) == self) return;  // no iterator: no allocation
        ThreadPoolExecutor e = (ThreadPoolExecutor) self;
        // culprit's own executors (if any) have their thread factory in its loader
        ClassLoader factoryLoader = e.getThreadFactory().getClass().getClassLoader();
        if (factoryLoader == AppExecutors.class.getClassLoader() && factoryLoader != ClassLoader.getSystemClassLoader()) return;
        synchronized (seen) {
            if (seen.size() < MAX && !seen.contains(e)) seen.add(e);
        }
    }

    /** Sums over the executors for series {@code pools} (executorMax: of the bounded ones); none when none was seen. */
    void sample(Map<String, Double> row) {
        if (seen.isEmpty()) return;
        double active = 0, queued = 0, max = 0;
        for (ThreadPoolExecutor e : seen) {
            if (e.isTerminated()) continue;
            active += e.getActiveCount();
            queued += e.getQueue().size();
            int m = e.getMaximumPoolSize();
            if (m != Integer.MAX_VALUE) max += m;  // a cached pool has no maximum: it would drown the sum
        }
        row.put("executorActive", active);
        row.put("executorQueued", queued);
        row.put("executorMax", max);
    }

    /** One row per executor for the {@code pools} view. */
    void describe(List<Map<String, Object>> rows) {
        for (ThreadPoolExecutor e : seen) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pool", "executor " + name(e));
            double active = e.getActiveCount();
            r.put("active", active);
            r.put("idle", Math.max(0, e.getPoolSize() - active));
            r.put("pending", (double) e.getQueue().size());
            r.put("total", (double) e.getMaximumPoolSize());
            rows.add(r);
        }
    }

    /** Spring's thread-name prefix when the factory has one, else the factory's class and the pool's identity. */
    static String name(ThreadPoolExecutor e) {
        ThreadFactory f = e.getThreadFactory();
        Object prefix = Reflect.call(f, "getThreadNamePrefix");
        if (prefix != null && !prefix.toString().isEmpty()) return prefix.toString();
        return f.getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(e));
    }
}
