package io.culprit.agent.probe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The servlet containers' worker pools, found without the application's help: Tomcat's executor
 * from the connector of the adapter its request hook sees ({@link RequestProbe}), Jetty's thread
 * pool from the server its request hook sees ({@link JettyHooks}), Undertow's XNIO worker at its
 * first {@code execute} (every request dispatched from an I/O thread goes through it). Each
 * kind is read through its own public getters once a second: busy and maximum threads for series
 * {@code pools}, as the containers' own metrics name them (Jetty's busy threads include its
 * selectors and acceptors, which count against its maximum too). Quarkus' worker pool (JBoss
 * Threads' EnhancedQueueExecutor) at its first {@code execute}: Vert.x's event loop hands it every
 * request to a blocking endpoint.
 */
final class ContainerPools {

    /** How to read one kind of pool; {@code mxBean}: the getters are on the object its {@code getMXBean()} returns. */
    private static final class Kind {
        final String name, busy, max, threads, queued;
        final boolean mxBean;

        Kind(String name, String busy, String max, String threads, String queued, boolean mxBean) {
            this.name = name;
            this.busy = busy;
            this.max = max;
            this.threads = threads;
            this.queued = queued;
            this.mxBean = mxBean;
        }
    }

    private static final Kind TOMCAT = new Kind("tomcat", "getActiveCount", "getMaximumPoolSize", "getPoolSize", null, false);
    private static final Kind JETTY = new Kind("jetty", "getBusyThreads", "getMaxThreads", "getThreads", "getQueueSize", false);
    private static final Kind UNDERTOW = new Kind("undertow", "getBusyWorkerThreadCount", "getMaxWorkerPoolSize",
            "getWorkerPoolSize", "getWorkerQueueSize", true);
    /** JBoss Threads' executor: Quarkus' worker pool, on which its blocking endpoints run (and WildFly's). */
    private static final Kind JBOSS = new Kind("jboss-threads", "getActiveCount", "getMaximumPoolSize", "getPoolSize", "getQueueSize", false);
    static final String JBOSS_EXECUTOR = "org.jboss.threads.EnhancedQueueExecutor";
    static final String TOMCAT_EXECUTOR = "org.apache.tomcat.util.threads.ThreadPoolExecutor";
    static final String XNIO_WORKER = "org.xnio.XnioWorker";
    static final String JETTY_POOL = "org.eclipse.jetty.util.thread.QueuedThreadPool";

    /** Pools and their kinds, at the same index: scanned without a lock or an iterator on every remember. */
    private final List<Object> pools = new CopyOnWriteArrayList<>();
    private final List<Kind> kinds = new CopyOnWriteArrayList<>();

    boolean isEmpty() {
        return pools.isEmpty();
    }

    /** Remembers a pool seen in use; anything that is none of the known kinds is ignored. */
    void remember(Object pool) {
        if (pool == null || pool == inner) return;
        for (int i = 0, n = pools.size(); i < n; i++) if (pools.get(i) == pool) return;
        Kind kind = kindOf(pool);
        if (kind == null) return;
        synchronized (pools) {
            for (Object p : pools) if (p == pool) return;
            if (kind == JBOSS && kinds.contains(UNDERTOW)) {
                // XNIO's worker runs its tasks on a JBoss Threads executor of its own, which its getters
                // already read: counted twice otherwise. The worker's execute calls the executor's, so it
                // is always found first.
                inner = pool;
                return;
            }
            kinds.add(kind);
            pools.add(pool);  // last: a reader that sees the pool sees its kind
        }
    }

    /** An executor that is another pool's inside (XNIO's task pool), not counted of its own. */
    private volatile Object inner;

    /**
     * By the class that declares the getters, not the pool's own class: applications subclass
     * Jetty's QueuedThreadPool (instrumented pools), and XNIO's worker is its NIO subclass.
     */
    private static Kind kindOf(Object pool) {
        for (Class<?> c = pool.getClass(); c != null; c = c.getSuperclass()) {
            String n = c.getName();
            if (n.equals(TOMCAT_EXECUTOR)) return TOMCAT;
            if (n.equals(XNIO_WORKER)) return UNDERTOW;
            if (n.equals(JETTY_POOL)) return JETTY;  // Jetty's default; its other pools lack the getters
            if (n.equals(JBOSS_EXECUTOR)) return JBOSS;
        }
        return null;
    }

    /** Sums over the pools for series {@code pools}: {@code containerBusy}, {@code containerMax}. */
    void sample(Map<String, Double> row) {
        int n = pools.size();
        if (n == 0) return;
        double busy = 0, max = 0;
        for (int i = 0; i < n; i++) {
            Kind k = kinds.get(i);
            Object source = source(pools.get(i), k);
            busy += busy(source, k);
            max += Reflect.number(source, k.max);
        }
        row.put("containerBusy", busy);
        row.put("containerMax", max);
    }

    /** One row per pool for the {@code pools} view. */
    void describe(List<Map<String, Object>> rows) {
        for (int i = 0, n = pools.size(); i < n; i++) {
            Kind k = kinds.get(i);
            Object pool = pools.get(i);
            Object source = source(pool, k);
            double busy = busy(source, k);
            double threads = Reflect.number(source, k.threads);
            double queued = k.queued != null ? Reflect.number(source, k.queued) : Reflect.number(Reflect.call(pool, "getQueue"), "size");
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pool", k.name + " " + pool.getClass().getSimpleName());
            r.put("active", busy);
            r.put("idle", Math.max(0, threads - busy));
            r.put("pending", queued);
            r.put("total", Reflect.number(source, k.max));
            rows.add(r);
        }
    }

    /**
     * Threads running a task now. JBoss Threads counts its active threads only with its statistics
     * on (off in Quarkus: -1), so its workers are looked at: an idle one parks on the executor itself,
     * a busy one runs or waits on something else.
     */
    private static double busy(Object source, Kind k) {
        double busy = Reflect.number(source, k.busy);
        if (k != JBOSS || busy >= 0) return busy;
        Object threads = Reflect.call(source, "getRunningThreads");
        if (!(threads instanceof Thread[])) return Double.NaN;
        int running = 0;
        for (Thread t : (Thread[]) threads) if (java.util.concurrent.locks.LockSupport.getBlocker(t) != source) running++;
        return running;
    }

    private static Object source(Object pool, Kind k) {
        return k.mxBean ? Reflect.call(pool, "getMXBean") : pool;
    }
}
