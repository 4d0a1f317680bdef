package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * The application's {@link ThreadPoolExecutor}s, found when one of their workers starts a task
 * after the probes started (Spring's ThreadPoolTaskExecutor, {@code Executors.newFixedThreadPool},
 * ScheduledThreadPoolExecutor), without the application's help: the only way to find instances
 * from an attached agent, short of a heap walk, is to see them used, as Glowroot and SkyWalking
 * see executors by weaving them. An executor that runs no task for the whole collection is not
 * found. ThreadPoolExecutor is a JDK class, so the sampler calls its getters directly.
 *
 * <p>The hook is on the worker ({@code ThreadPoolExecutor$Worker.lock()}, which {@code runWorker}
 * calls before every task), never on ThreadPoolExecutor itself: see {@link #WORKER_LOCK}.
 */
final class AppExecutors {

    /** Table {@code executors} (docs/CASEFILE.md): which pool a hand-off queued on, and how it is configured. */
    static final List<String> COLUMNS = List.of("executor", "threads", "core", "max", "unboundedQueue", "queueCapacity",
            "windows", "fullWindows", "activeMean", "queuedMean", "queuedMax");

    static final String TPE = "java.util.concurrent.ThreadPoolExecutor";
    /** Enough for any real application; a program creating pools per task must not grow this list. */
    private static final int MAX = 64;

    final List<ThreadPoolExecutor> seen = new CopyOnWriteArrayList<>();
    /** Per executor of {@link #seen}, by index (the list only grows): its windows, read by the sampler. */
    private final List<Stats> stats = new ArrayList<>();

    private static final class Stats {
        int windows, fullWindows;
        double activeSum, queuedSum, queuedMax;
    }

    /**
     * Why pools are found at their workers' {@code lock()}: retransforming the class that holds
     * {@code runWorker} (as weaving {@code execute} did) leaves every worker already inside that
     * loop running the old, now obsolete, method, and HotSpot did not compile it again: with
     * Tomcat's copy of the class woven, all of the lab's request threads still ran their loop
     * interpreted three minutes later (1.5 % of the service's CPU), and would after reset and
     * detach too. The worker's own class holds no loop: its obsolete {@code run()} frame only
     * ever called {@code runWorker} once.
     */
    static final String WORKER_LOCK = "lock";

    Hook hook() {
        return new Hook(TPE + "$Worker", WORKER_LOCK, "()", Hook.ENTER | Hook.OUTER) {
            @Override
            public long probeEnter(int id, Object self, Object executor) {
                remember(executor);
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

    /** Sums over the bounded executors for series {@code pools}, and the common pool; none when none was seen or used. */
    synchronized void sample(Map<String, Double> row) {
        sampleCommonPool(row);
        if (seen.isEmpty()) return;
        double active = 0, queued = 0, max = 0;
        for (int i = 0; i < seen.size(); i++) {
            ThreadPoolExecutor e = seen.get(i);
            if (stats.size() <= i) stats.add(new Stats());
            if (e.isTerminated()) continue;
            int m = threadsAtMost(e);
            // A cached pool (a SynchronousQueue, no core) has no maximum: it would drown the sum, and its busy threads would read as
            // filling the bounded pools' (a service's pool of 2 looked full with a cached pool beside it).
            if (m == Integer.MAX_VALUE) continue;
            // A scheduled pool runs timers: its queue holds them waiting for their time, not tasks waiting for
            // a thread (the lab's Hystrix timer: ~6,000), and its mostly idle threads would dilute the pools
            // requests hand work to (Tomcat's utility pool of 2 beside Spring's full @Async pool of 8 read 80 %).
            if (e instanceof java.util.concurrent.ScheduledThreadPoolExecutor) continue;
            int busy = e.getActiveCount(), waiting = e.getQueue().size();
            active += busy;
            max += m;
            queued += waiting;
            Stats s = stats.get(i);
            s.windows++;
            if (busy >= m) s.fullWindows++;
            s.activeSum += busy;
            s.queuedSum += waiting;
            s.queuedMax = Math.max(s.queuedMax, waiting);
        }
        row.put("executorActive", active);
        row.put("executorQueued", queued);
        row.put("executorMax", max);
    }

    /**
     * {@code ForkJoinPool.commonPool()}: where {@code CompletableFuture.supplyAsync}/{@code runAsync}
     * without an executor and parallel streams run, sized for CPU-bound work (cores − 1 threads).
     * Blocking calls there queue every caller behind a few threads. It is never found at a
     * worker (it has none of ThreadPoolExecutor's), but it is always there: sampled once it has
     * threads. Active counts threads running a task, blocked ones included, and the compensating
     * threads a managed block adds, so it may exceed the parallelism.
     */
    static void sampleCommonPool(Map<String, Double> row) {
        ForkJoinPool common = ForkJoinPool.commonPool();
        if (common.getPoolSize() == 0) return;
        row.put("commonActive", (double) common.getActiveThreadCount());
        row.put("commonQueued", queued(common));
        row.put("commonMax", (double) common.getParallelism());
    }

    /** Tasks waiting in the pool: submitted from outside it, and forked inside it. */
    private static double queued(ForkJoinPool pool) {
        return pool.getQueuedSubmissionCount() + pool.getQueuedTaskCount();
    }

    /**
     * Table {@code executors}: each bounded executor the series summed, with its configuration, so a
     * verdict can name the pool that was full and the setting that sizes it (Spring Boot's
     * {@code task-} executor: {@code spring.task.execution.pool.core-size}).
     */
    synchronized List<Map<String, Object>> rows() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < stats.size(); i++) {
            Stats s = stats.get(i);
            if (s.windows == 0) continue;
            ThreadPoolExecutor e = seen.get(i);
            long capacity = queueCapacity(e);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("executor", name(e));
            r.put("threads", threadsAtMost(e));
            r.put("core", e.getCorePoolSize());
            r.put("max", e.getMaximumPoolSize());
            r.put("unboundedQueue", capacity >= Integer.MAX_VALUE);
            if (capacity < Integer.MAX_VALUE) r.put("queueCapacity", capacity);
            r.put("windows", s.windows);
            r.put("fullWindows", s.fullWindows);
            r.put("activeMean", s.activeSum / s.windows);
            r.put("queuedMean", s.queuedSum / s.windows);
            r.put("queuedMax", s.queuedMax);
            rows.add(r);
        }
        return rows;
    }

    /** One row per executor for the {@code pools} view. */
    void describe(List<Map<String, Object>> rows) {
        ForkJoinPool common = ForkJoinPool.commonPool();
        if (common.getPoolSize() > 0) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pool", "executor ForkJoinPool.commonPool");
            double active = common.getActiveThreadCount();
            r.put("active", active);
            r.put("idle", Math.max(0, common.getPoolSize() - active));
            r.put("pending", queued(common));
            r.put("total", (double) common.getParallelism());
            rows.add(r);
        }
        for (ThreadPoolExecutor e : seen) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pool", "executor " + name(e));
            double active = e.getActiveCount();
            r.put("active", active);
            r.put("idle", Math.max(0, e.getPoolSize() - active));
            r.put("pending", (double) e.getQueue().size());
            r.put("total", (double) threadsAtMost(e));
            rows.add(r);
        }
    }

    /**
     * The most threads the executor will run: its maximum, except behind an unbounded queue, where
     * no task is ever refused, so no thread beyond the core ones is ever started. Spring Boot's
     * {@code applicationTaskExecutor} (the default for {@code @Async}) is 8 core threads, maximum
     * Integer.MAX_VALUE and an unbounded queue: 8 threads, read as "no maximum" and skipped, until
     * a blind test's requests queued behind it for half their time unseen.
     */
    static int threadsAtMost(ThreadPoolExecutor e) {
        return queueCapacity(e) >= Integer.MAX_VALUE ? Math.max(1, e.getCorePoolSize()) : e.getMaximumPoolSize();
    }

    /** The queue's capacity, not its room: a queue holding tasks has less room than an unbounded one. */
    private static long queueCapacity(ThreadPoolExecutor e) {
        java.util.concurrent.BlockingQueue<Runnable> q = e.getQueue();
        return (long) q.remainingCapacity() + q.size();
    }

    /** Spring's thread-name prefix when the factory has one, else the factory's class and the pool's identity. */
    static String name(ThreadPoolExecutor e) {
        ThreadFactory f = e.getThreadFactory();
        Object prefix = Reflect.call(f, "getThreadNamePrefix");
        if (prefix != null && !prefix.toString().isEmpty()) return prefix.toString();
        return f.getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(e));
    }
}
