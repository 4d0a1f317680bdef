package io.culprit.lab.data;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.PoolStats;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.stereotype.Component;

/**
 * Pool statistics for the lab's own tests (GET /lab/stats): HikariCP calls us on every acquire,
 * and at that moment we read the live number of threads waiting for a connection, so short bursts
 * of waiters between two polls are not missed. culprit itself reads the pool over JMX instead.
 */
@Component
public class PoolMetrics implements MetricsTrackerFactory {

    private final LongAdder acquires = new LongAdder();
    private final LongAdder acquireNanos = new LongAdder();
    private final LongAccumulator maxAcquireNanos = new LongAccumulator(Math::max, 0);
    private final LongAccumulator maxPending = new LongAccumulator(Math::max, 0);
    private final LongAdder acquiresWithWaiters = new LongAdder();
    private final AtomicLong usageMillis = new AtomicLong();
    private volatile HikariDataSource ds;

    void attach(HikariDataSource ds) {
        this.ds = ds;
    }

    @Override
    public IMetricsTracker create(String poolName, PoolStats stats) {
        return new IMetricsTracker() {
            @Override
            public void recordConnectionAcquiredNanos(long nanos) {
                acquires.increment();
                acquireNanos.add(nanos);
                maxAcquireNanos.accumulate(nanos);
                HikariDataSource d = ds;
                int pending = d == null || d.getHikariPoolMXBean() == null ? 0
                        : d.getHikariPoolMXBean().getThreadsAwaitingConnection();
                maxPending.accumulate(pending);
                if (pending > 0) {
                    acquiresWithWaiters.increment();
                }
            }

            @Override
            public void recordConnectionUsageMillis(long millis) {
                usageMillis.addAndGet(millis);
            }
        };
    }

    /** Counters since start; callers diff two snapshots around a load window. */
    public Snapshot snapshot() {
        return new Snapshot(acquires.sum(), acquireNanos.sum() / 1_000_000.0, maxAcquireNanos.get() / 1_000_000.0,
                maxPending.get(), acquiresWithWaiters.sum(), usageMillis.get());
    }

    /** Resets the maxima so a test can measure one window. */
    public void resetMaxima() {
        maxAcquireNanos.reset();
        maxPending.reset();
    }

    public record Snapshot(long acquires, double acquireMsTotal, double maxAcquireMs, long maxPending,
                           long acquiresWithWaiters, long usageMsTotal) {
    }
}
