package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Connection and worker pools, found without the application's help: the first call into
 * {@code HikariPool.getConnection(long)} or into Tomcat's executor hands us the instance, and a
 * sampler reads their public getters once a second. Acquire time is the woven getConnection's
 * duration; usage time runs from that return to {@code ProxyConnection.close()}. Pending is the
 * most threads seen waiting in the window: at the tick, and at the end of every acquire that waited.
 */
final class PoolProbe {

    static final String HIKARI_POOL = "com.zaxxer.hikari.pool.HikariPool";
    static final String PROXY_CONNECTION = "com.zaxxer.hikari.pool.ProxyConnection";
    static final String TOMCAT_EXECUTOR = "org.apache.tomcat.util.threads.ThreadPoolExecutor";

    final List<Object> hikariPools = new CopyOnWriteArrayList<>();
    final List<Object> containerPools = new CopyOnWriteArrayList<>();
    private final Map<Object, Long> leasedAt = Collections.synchronizedMap(new IdentityHashMap<>());
    private final LongAccumulator acquireMaxNs = new LongAccumulator(Math::max, 0);
    private final LongAccumulator usageMaxNs = new LongAccumulator(Math::max, 0);
    private final LongAdder usageSumNs = new LongAdder();
    private final LongAdder usageCount = new LongAdder();
    private final LongAdder acquires = new LongAdder();
    private final LongAccumulator pendingMax = new LongAccumulator(Math::max, 0);
    /** An acquire this long had to wait for a connection: a free one is handed out in microseconds. */
    private static final long WAITED_NS = 1_000_000;

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        h.add(new Hook(HIKARI_POOL, "getConnection", "(J)") {
            @Override
            public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
                long now = System.nanoTime();
                remember(hikariPools, self);
                acquires.increment();
                acquireMaxNs.accumulate(now - start);
                if (now - start >= WAITED_NS) {
                    // This thread waited until a moment ago: it and those still waiting were pending
                    // together. A once-a-second reading alone misses bursts shorter than a second.
                    double others = Reflect.number(self, "getThreadsAwaitingConnection");
                    pendingMax.accumulate(1 + (Double.isNaN(others) ? 0 : (long) others));
                }
                if (returned != null) leasedAt.put(returned, now);
            }
        });
        h.add(new Hook(PROXY_CONNECTION, "close", "()") {
            @Override
            public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
                Long at = leasedAt.remove(self);
                if (at == null) return; // leased before the probe started, or closed twice
                long held = start - at;
                usageMaxNs.accumulate(held);
                usageSumNs.add(held);
                usageCount.increment();
            }
        });
        h.add(new Hook(TOMCAT_EXECUTOR, "execute", "(Ljava/lang/Runnable;)") {
            @Override
            public long enterArgs(int id, Object self, Object[] args) {
                remember(containerPools, self);
                return 0L;
            }
        });
        return h;
    }

    private static void remember(List<Object> pools, Object pool) {
        if (pool == null) return;
        for (Object p : pools) if (p == pool) return;   // the common case: a short list, no lock
        synchronized (pools) {
            for (Object p : pools) if (p == pool) return;
            pools.add(pool);
        }
    }

    /** One window's row of series {@code pools}; resets the per-window maxima. */
    Map<String, Double> sample() {
        Map<String, Double> row = new LinkedHashMap<>();
        if (!hikariPools.isEmpty()) {
            row.put("hikariActive", sum(hikariPools, "getActiveConnections"));
            row.put("hikariIdle", sum(hikariPools, "getIdleConnections"));
            row.put("hikariPending", Math.max(sum(hikariPools, "getThreadsAwaitingConnection"), pendingMax.getThenReset()));
            row.put("hikariTotal", sum(hikariPools, "getTotalConnections"));
            long n = acquires.sumThenReset();
            row.put("hikariAcquireMsMax", n == 0 ? Double.NaN : acquireMaxNs.getThenReset() / 1e6);
            long used = usageCount.sumThenReset();
            long usedNs = usageSumNs.sumThenReset();
            double usedMax = usageMaxNs.getThenReset() / 1e6;
            row.put("hikariUsageMsMax", used == 0 ? Double.NaN : usedMax);
            row.put("hikariUsageMsMean", used == 0 ? Double.NaN : usedNs / 1e6 / used);
        }
        if (!containerPools.isEmpty()) {
            row.put("containerBusy", sum(containerPools, "getActiveCount"));
            row.put("containerMax", sum(containerPools, "getMaximumPoolSize"));
        }
        return row;
    }

    /** The live view for the {@code pools} command: one row per pool instance. */
    List<Map<String, Object>> describe() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Object p : hikariPools) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pool", "hikari " + p);  // HikariPool.toString() is its pool name
            r.put("active", Reflect.number(p, "getActiveConnections"));
            r.put("idle", Reflect.number(p, "getIdleConnections"));
            r.put("pending", Reflect.number(p, "getThreadsAwaitingConnection"));
            r.put("total", Reflect.number(p, "getTotalConnections"));
            rows.add(r);
        }
        for (Object p : containerPools) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pool", "tomcat " + p.getClass().getSimpleName());
            r.put("active", Reflect.number(p, "getActiveCount"));
            r.put("idle", Reflect.number(p, "getPoolSize") - Reflect.number(p, "getActiveCount"));
            Object queue = Reflect.call(p, "getQueue");
            r.put("pending", Reflect.number(queue, "size"));
            r.put("total", Reflect.number(p, "getMaximumPoolSize"));
            rows.add(r);
        }
        return rows;
    }

    private static double sum(List<Object> pools, String getter) {
        double s = 0;
        for (Object p : pools) {
            double v = Reflect.number(p, getter);
            if (Double.isNaN(v)) return Double.NaN;
            s += v;
        }
        return s;
    }
}
