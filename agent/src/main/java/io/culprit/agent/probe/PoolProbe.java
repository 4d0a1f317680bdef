package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Connection and worker pools, found without the application's help: the first acquire from a
 * JDBC pool (HikariCP, Tomcat's, DBCP2, c3p0, Druid, Agroal: {@link ConnectionPools}), or a container's request or task
 * ({@link ContainerPools}), hands us the instance, and a sampler reads their public getters once
 * a second. Acquire time is the woven acquire's duration; usage time runs from its return to the
 * connection's return to the pool. Pending is the most threads seen waiting in the window: at the
 * tick, and at the end of every acquire that waited.
 */
final class PoolProbe {

    static final String HIKARI_POOL = "com.zaxxer.hikari.pool.HikariPool";
    static final String R2DBC_POOL = "io.r2dbc.pool.ConnectionPool";
    static final String VERTX_SQL_POOL = "io.vertx.sqlclient.impl.pool.SqlConnectionPool";
    static final String PROXY_CONNECTION = "com.zaxxer.hikari.pool.ProxyConnection";
    static final String TOMCAT_POOL = "org.apache.tomcat.jdbc.pool.ConnectionPool";
    static final String DBCP2_SOURCE = "org.apache.commons.dbcp2.PoolingDataSource";
    static final String DBCP2_GUARD = "org.apache.commons.dbcp2.PoolingDataSource$PoolGuardConnectionWrapper";
    static final String C3P0_SOURCE = "com.mchange.v2.c3p0.impl.AbstractPoolBackedDataSource";
    static final String DRUID_SOURCE = "com.alibaba.druid.pool.DruidDataSource";
    static final String AGROAL_POOL = "io.agroal.pool.ConnectionPool";
    /** Agroal's wrapper → the pooled connection's handler, which a JTA transaction keeps past the wrapper's close. */
    private final Getter agroalHandler = new Getter("getHandler");

    final ConnectionPools connectionPools = new ConnectionPools();
    final ContainerPools containers = new ContainerPools();
    final AppExecutors executors = new AppExecutors();
    final ObjectPools objectPools = new ObjectPools();
    /** Guards the window's acquire and usage figures, which only folds write. */
    private final Object foldLock = new Object();
    /** Acquires and usages as {ACQUIRE or USAGE, ns, 0, 0}. */
    private final EventLog log = new EventLog(foldLock, this::fold, 0);
    /**
     * Per thread: leased connection proxies (slots 0..3), in slot 4 when (a long[4]), in slot 5
     * its ring of acquires and usages ({@link EventLog}): one lookup per acquire and per close.
     * JDK types only, see {@link Prepared}.
     */
    private final PerThread leased = new PerThread(() -> {
        Object[] c = new Object[LEASES + 2];
        c[LEASES] = new long[LEASES];
        c[LEASES + 1] = log.newRing();
        return c;
    });
    private static final int LEASES = 4;
    private static final long ACQUIRE = 0, USAGE = 1;
    private long acquires, acquireMaxNs, acquireSumNs, usageCount, usageSumNs, usageMaxNs;
    /**
     * Requests the container started on virtual threads this window: such a container has no
     * worker pool, so nothing but the connection pool bounds the requests in flight.
     */
    private final LongAdder virtualRequests = new LongAdder();
    private volatile boolean sawVirtual;
    /** Raised by an acquire that waited (rare), so a shared maximum costs nothing per request. */
    private final AtomicLong pendingMax = new AtomicLong();
    /** An acquire this long had to wait for a connection: a free one is handed out in microseconds. */
    private static final long WAITED_NS = 1_000_000;

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        // Each library's acquire is timed where it waits for a connection, and its lease ends where the
        // connection goes back: HikariCP's proxy, Tomcat's pooled connection, DBCP2's guard wrapper,
        // c3p0's and Druid's pooled connections.
        h.add(acquireAt(HIKARI_POOL, "getConnection", "(J)", ConnectionPools.Kind.HIKARI));
        h.add(releaseAt(PROXY_CONNECTION, "close", "()", Hook.ENTER | Hook.SELF));
        // getConnection() and getConnection(user, password) both borrow here; the protected overload
        // it calls only validates the connection it was handed.
        h.add(acquireAt(TOMCAT_POOL, "borrowConnection", "(ILjava/lang/String;Ljava/lang/String;)", ConnectionPools.Kind.TOMCAT));
        h.add(releaseAt(TOMCAT_POOL, "returnConnection", "(L", Hook.ENTER | Hook.ARG0));
        h.add(acquireAt(DBCP2_SOURCE, "getConnection", "()", ConnectionPools.Kind.DBCP2));
        h.add(releaseAt(DBCP2_GUARD, "close", "()", Hook.ENTER | Hook.SELF));
        h.add(acquireAt(C3P0_SOURCE, "getConnection", "()", ConnectionPools.Kind.C3P0));
        h.add(releaseAt("com.mchange.v2.c3p0.impl.NewProxyConnection", "close", "()", Hook.ENTER | Hook.SELF));
        // Druid's getConnection(long) runs its filters, which end here: the one place every acquire passes.
        h.add(acquireAt(DRUID_SOURCE, "getConnectionDirect", "(J)", ConnectionPools.Kind.DRUID));
        h.add(releaseAt("com.alibaba.druid.pool.DruidPooledConnection", "close", "()", Hook.ENTER | Hook.SELF));
        // Agroal lends a new wrapper at every getConnection, and inside a JTA transaction (Quarkus'
        // @Transactional) each one shares the handler enlisted at the first, which goes back only at
        // the transaction's end: the lease is the handler's, from the first acquire to that return.
        h.add(acquireAt(AGROAL_POOL, "getConnection", "()", ConnectionPools.Kind.AGROAL));
        h.add(acquireAt(AGROAL_POOL, "getReadOnlyConnection", "()", ConnectionPools.Kind.AGROAL));
        h.add(releaseAt(AGROAL_POOL, "returnConnectionHandler", "(L", Hook.ENTER | Hook.ARG0));
        // R2DBC's pool lends asynchronously: its create() returns the acquire as a Mono, so it is found there, not timed.
        h.add(new Hook(R2DBC_POOL, "create", "()Lreactor/core/publisher/Mono;", Hook.EXIT | Hook.SELF) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                connectionPools.remember(self);
            }
        });
        // The Vert.x SQL client's pool lends asynchronously too: found at its acquire (withConnection,
        // withTransaction) and at its execute (a query on the pool), any overload of either.
        for (String lend : new String[] {"acquire", "execute"}) {
            h.add(new Hook(VERTX_SQL_POOL, lend, "(", Hook.ENTER | Hook.SELF) {
                @Override
                public long probeEnter(int id, Object self, Object arg0) {
                    connectionPools.remember(self);
                    return 0L;
                }
            });
        }
        h.add(executors.hook());
        h.addAll(objectPools.hooks());
        // Tomcat's pool is found by its request hook (RequestProbe). XnioWorker hands tasks to a
        // pool of another class, so weaving its execute leaves no worker loop obsolete; JBoss
        // Threads' workers take their tasks from its queue, not through execute, so the same holds.
        for (String executor : new String[] {ContainerPools.XNIO_WORKER, ContainerPools.JBOSS_EXECUTOR}) {
            h.add(new Hook(executor, "execute", "(Ljava/lang/Runnable;)", Hook.ENTER | Hook.SELF) {
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
     * An acquire from {@code pool} that began at {@code start} returned {@code connection}: its time
     * goes to the window's figures, and the lease starts on this thread.
     */
    private void acquired(Object pool, ConnectionPools.Kind kind, long start, Object connection) {
        long now = System.nanoTime();
        connectionPools.remember(pool);
        Object[] c = (Object[]) leased.get();
        log.put((long[]) c[LEASES + 1], ACQUIRE, now - start, 0, 0);
        if (now - start >= WAITED_NS) {
            // This thread waited until a moment ago: it and those still waiting were pending
            // together. A once-a-second reading alone misses bursts shorter than a second.
            double others = kind.waiting(pool);
            if (waited(others, kind.idle(pool))) raise(pendingMax, 1 + (Double.isNaN(others) ? 0 : (long) others));
        }
        if (kind == ConnectionPools.Kind.AGROAL) connection = agroalHandler.call(connection);
        if (connection != null) lease(c, connection, now);
    }

    /** The hook on a pool's acquire: its receiver is the pool, its return value the connection lent. */
    private Hook acquireAt(String className, String method, String descriptor, ConnectionPools.Kind kind) {
        return new Hook(className, method, descriptor, Hook.TIMED | Hook.SELF | Hook.RETURNED) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                acquired(self, kind, start, returned);
            }
        };
    }

    /**
     * The hook that ends a lease: at the entry of the connection's own close (the receiver is the
     * leased object) or of the pool's return (its first argument is). At the entry, not the exit:
     * the close hands the connection to a waiter, whose wake-up can take this thread's core, and on
     * a saturated CPU the exit then comes a run queue later, long after the connection was back.
     */
    private Hook releaseAt(String className, String method, String descriptor, int reads) {
        return new Hook(className, method, descriptor, reads) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                released((reads & Hook.ARG0) != 0 ? arg0 : self);
                return 0L;
            }
        };
    }

    private void released(Object connection) {
        Object[] c = (Object[]) leased.get();
        long at = release(c, connection);
        if (at == 0) return; // leased before the probe started, on another thread, or closed twice
        log.put((long[]) c[LEASES + 1], USAGE, System.nanoTime() - at, 0, 0);
    }

    /**
     * Usage time needs the lease's start at close. A connection is closed on the thread that got
     * it (Spring's DataSourceUtils, JPA, plain try-with-resources), so the lease is kept on that
     * thread: no lock shared by all request threads. A thread holding more than LEASES at once
     * (nested queries) forgets its oldest: that lease's usage is not measured.
     */
    private static void lease(Object[] c, Object connection, long now) {
        long[] at = (long[]) c[LEASES];
        int slot = 0;
        // A connection lent again before its return (a transaction's next statement) keeps its first lease.
        for (int i = 0; i < LEASES; i++) if (c[i] == connection) return;
        for (int i = 0; i < LEASES; i++) {
            if (c[i] == null) { slot = i; break; }
            if (at[i] < at[slot]) slot = i;
        }
        c[slot] = connection;
        at[slot] = now;
    }

    /**
     * Whether this thread holds a pooled connection now: a remote call made meanwhile keeps that
     * connection from every other request for its whole duration (a transaction around an HTTP call).
     */
    boolean holdsConnection() {
        Object[] c = (Object[]) leased.get();
        for (int i = 0; i < LEASES; i++) if (c[i] != null) return true;
        return false;
    }

    /** When {@code connection} was leased on this thread ({@code c}), or 0; forgets it. */
    private static long release(Object[] c, Object connection) {
        long[] at = (long[]) c[LEASES];
        for (int i = 0; i < LEASES; i++) {
            if (c[i] == connection) {
                c[i] = null;
                return at[i];
            }
        }
        return 0;
    }

    /** Whether the container has started a request on a virtual thread since these probes began. */
    boolean onVirtualThreads() {
        return sawVirtual;
    }

    /** A request entered the container on a virtual thread. */
    void virtualRequest() {
        if (!sawVirtual) sawVirtual = true;
        virtualRequests.increment();
    }

    /** Adds drained acquires and usages to the window's figures; under foldLock. */
    private void fold(long[] records, int n) {
        for (int i = 0; i < n * EventLog.WORDS; i += EventLog.WORDS) {
            long ns = records[i + 1];
            if (records[i] == ACQUIRE) {
                acquires++;
                acquireSumNs += ns;
                acquireMaxNs = Math.max(acquireMaxNs, ns);
            } else {
                usageCount++;
                usageSumNs += ns;
                usageMaxNs = Math.max(usageMaxNs, ns);
            }
        }
    }

    /** {@code max} becomes {@code v} if larger: a read, and a CAS only when it is. */
    private static void raise(AtomicLong max, long v) {
        for (long m = max.get(); v > m; m = max.get()) {
            if (max.compareAndSet(m, v)) return;
        }
    }

    /** Adds {@code pool} to {@code pools} once: shared by every probe that finds pools at their use. */
    static void remember(List<Object> pools, Object pool) {
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
        boolean found = !connectionPools.isEmpty();
        if (found) connectionPools.sample(row, pendingMax.getAndSet(0));
        synchronized (foldLock) {
            log.drainAll();  // with no pool found too: the rings of threads that ended go
            if (found) {
                row.put("dbAcquireMsMax", acquires == 0 ? Double.NaN : acquireMaxNs / 1e6);
                row.put("dbAcquireMsTotal", acquireSumNs / 1e6);  // every acquire, waited or not
                row.put("dbUsageMsMax", usageCount == 0 ? Double.NaN : usageMaxNs / 1e6);
                row.put("dbUsageMsMean", usageCount == 0 ? Double.NaN : usageSumNs / 1e6 / usageCount);
            }
            acquires = acquireMaxNs = acquireSumNs = usageCount = usageSumNs = usageMaxNs = 0;
        }
        if (sawVirtual) row.put("containerVirtual", (double) virtualRequests.sumThenReset());  // requests, this window
        containers.sample(row);
        executors.sample(row);
        objectPools.sample();
        return row;
    }

    /** The live view for the {@code pools} command: one row per pool instance. */
    List<Map<String, Object>> describe() {
        List<Map<String, Object>> rows = new ArrayList<>();
        connectionPools.describe(rows);
        containers.describe(rows);
        executors.describe(rows);
        objectPools.describe(rows);
        return rows;
    }

    /**
     * Whether a slow acquire waited for a connection: others still wait, or none is idle. Slow with
     * idle connections and nobody waiting is not a wait: a GC pause or a preemption landing inside
     * the acquire, or Hikari's alive check of a connection idle for over 500 ms (a round trip to the
     * database). CI's demo cases read one such "waiter" in most windows, beside 8-10 idle
     * connections, and gc-pressure once correlated it with the pauses that made it.
     */
    static boolean waited(double othersWaiting, double idle) {
        return Double.isNaN(othersWaiting) || Double.isNaN(idle) || othersWaiting > 0 || idle == 0;
    }
}
