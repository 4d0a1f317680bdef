package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Connection and worker pools, found without the application's help: the first call into
 * {@code HikariPool.getConnection(long)} or into a container's pool ({@link ContainerPools})
 * hands us the instance, and a sampler reads their public getters once a second. Acquire time is
 * the woven getConnection's duration; usage time runs from that return to
 * {@code ProxyConnection.close()}. Pending is the most threads seen waiting in the window: at the
 * tick, and at the end of every acquire that waited.
 */
final class PoolProbe {

    static final String HIKARI_POOL = "com.zaxxer.hikari.pool.HikariPool";
    static final String PROXY_CONNECTION = "com.zaxxer.hikari.pool.ProxyConnection";

    final List<Object> hikariPools = new CopyOnWriteArrayList<>();
    final ContainerPools containers = new ContainerPools();
    final AppExecutors executors = new AppExecutors();
    /**
     * Per thread: leased connection proxies (slots 0..3) and, in slot 4, when (a long[4]): one
     * lookup per acquire and per close. JDK types only, see {@link Prepared}.
     */
    private final PerThread leased = new PerThread(() -> {
        Object[] c = new Object[LEASES + 1];
        c[LEASES] = new long[LEASES];
        return c;
    });
    private static final int LEASES = 4;
    // Maxima as plain AtomicLongs: a LongAccumulator's get() walks all its cells on every
    // acquire and close, where one volatile read (and a CAS only for a new maximum) suffices.
    private final AtomicLong acquireMaxNs = new AtomicLong();
    private final AtomicLong usageMaxNs = new AtomicLong();
    private final LongAdder usageSumNs = new LongAdder();
    private final LongAdder usageCount = new LongAdder();
    private final LongAdder acquires = new LongAdder();
    private final AtomicLong pendingMax = new AtomicLong();
    /** An acquire this long had to wait for a connection: a free one is handed out in microseconds. */
    private static final long WAITED_NS = 1_000_000;

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        h.add(new Hook(HIKARI_POOL, "getConnection", "(J)", Hook.TIMED | Hook.SELF | Hook.RETURNED) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long now = System.nanoTime();
                remember(hikariPools, self);
                acquires.increment();
                raise(acquireMaxNs, now - start);
                if (now - start >= WAITED_NS) {
                    // This thread waited until a moment ago: it and those still waiting were pending
                    // together. A once-a-second reading alone misses bursts shorter than a second.
                    double others = Reflect.number(self, "getThreadsAwaitingConnection");
                    raise(pendingMax, 1 + (Double.isNaN(others) ? 0 : (long) others));
                }
                if (returned != null) lease(returned, now);
            }
        });
        h.add(new Hook(PROXY_CONNECTION, "close", "()", Hook.EXIT | Hook.SELF) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long at = release(self);
                if (at == 0) return; // leased before the probe started, on another thread, or closed twice
                long held = System.nanoTime() - at;
                raise(usageMaxNs, held);
                usageSumNs.add(held);
                usageCount.increment();
            }
        });
        h.add(executors.hook());
        for (String pool : new String[] {ContainerPools.TOMCAT_EXECUTOR, ContainerPools.XNIO_WORKER}) {
            h.add(new Hook(pool, "execute", "(Ljava/lang/Runnable;)", Hook.ENTER | Hook.SELF) {
                @Override
                public long probeEnter(int id, Object self, Object arg0) {
                    containers.remember(self);
                    return 0L;
                }
            });
        }
        return h;
    }

    /**
     * Usage time needs the lease's start at close. A connection is closed on the thread that got
     * it (Spring's DataSourceUtils, JPA, plain try-with-resources), so the lease is kept on that
     * thread: no lock shared by all request threads. A thread holding more than LEASES at once
     * (nested queries) forgets its oldest: that lease's usage is not measured.
     */
    private void lease(Object connection, long now) {
        Object[] c = (Object[]) leased.get();
        long[] at = (long[]) c[LEASES];
        int slot = 0;
        for (int i = 0; i < LEASES; i++) {
            if (c[i] == null) { slot = i; break; }
            if (at[i] < at[slot]) slot = i;
        }
        c[slot] = connection;
        at[slot] = now;
    }

    /** When {@code connection} was leased on this thread, or 0; forgets it. */
    private long release(Object connection) {
        Object[] c = (Object[]) leased.get();
        long[] at = (long[]) c[LEASES];
        for (int i = 0; i < LEASES; i++) {
            if (c[i] == connection) {
                c[i] = null;
                return at[i];
            }
        }
        return 0;
    }

    /** {@code max} becomes {@code v} if larger: a read, and a CAS only when it is. */
    private static void raise(AtomicLong max, long v) {
        for (long m = max.get(); v > m; m = max.get()) {
            if (max.compareAndSet(m, v)) return;
        }
    }

    private static void remember(List<Object> pools, Object pool) {
        if (pool == null) return;
        // The common case: a short list, no lock, no iterator allocated.
        for (int i = 0, n = pools.size(); i < n; i++) if (pools.get(i) == pool) return;
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
            row.put("hikariPending", Math.max(sum(hikariPools, "getThreadsAwaitingConnection"), pendingMax.getAndSet(0)));
            row.put("hikariTotal", sum(hikariPools, "getTotalConnections"));
            long n = acquires.sumThenReset();
            row.put("hikariAcquireMsMax", n == 0 ? Double.NaN : acquireMaxNs.getAndSet(0) / 1e6);
            long used = usageCount.sumThenReset();
            long usedNs = usageSumNs.sumThenReset();
            double usedMax = usageMaxNs.getAndSet(0) / 1e6;
            row.put("hikariUsageMsMax", used == 0 ? Double.NaN : usedMax);
            row.put("hikariUsageMsMean", used == 0 ? Double.NaN : usedNs / 1e6 / used);
        }
        containers.sample(row);
        executors.sample(row);
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
        containers.describe(rows);
        executors.describe(rows);
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
