package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import java.util.Optional;

/**
 * Requests that queue at a connection pool because the CPU is full, not because the pool is
 * short. A pool that runs out has every connection lent out while threads wait for one. When this
 * JVM saturates the machine's CPU, the threads waiting at the pool also wait for a core: a
 * connection given back is offered to a waiter that is not running, and stays unclaimed (HikariCP
 * counts it idle, Tomcat's pool neither idle nor active) until the waiter gets a core. So
 * connections sit free while threads wait: the pool is where a service at its CPU capacity keeps its
 * queue, and a larger pool would run more requests at once on the same cores and serve no more.
 * Everything measured in wall time stretches with the run queue there, the statements' time and
 * the connections' hold included, so neither tells the two apart; the free connections do.
 */
final class CpuBoundPool {

    /**
     * A quarter of the pool free, on average, in the windows where threads waited. An exhausted pool
     * reads at most a connection in transit: 0 of 10 under GC pauses, a leak or a row lock, 0.25 of 4
     * behind a remote call, 1 of 10 under virtual threads' unbounded demand. A Tomcat-pool and a
     * HikariCP service at their CPU capacity on 2 cores read about half of 4.
     */
    static final double FREE_SHARE = 0.25;
    /** Windows with a waiter, at least: a waiter or two is no queue. */
    static final int MIN_WINDOWS = 3;

    static final String EXPLANATION = "Requests wait for a connection, yet connections sit free: those given back are"
            + " offered to waiting threads that are not running, and stay unclaimed until a waiter gets a core. This JVM"
            + " keeps the CPU saturated, so every runnable thread waits for a core, wherever it is; the pool is where"
            + " these requests wait. A larger pool would let more requests run at once on the same cores and serve no"
            + " more of them. Every time measured on the clock (the statements', the connections' hold) stretches with"
            + " the run queue too.";
    static final String FIX = "Nothing to change at the pool. If this rate is below what the service must serve, lower"
            + " the CPU each request costs (the flame graph's widest frames; cpu-hotspot and the CPU consumers above"
            + " name them) or add cores or instances.";

    private CpuBoundPool() { }

    /**
     * The clause that says so, with its numbers tagged in {@code n}; null when this JVM does not
     * saturate the CPU, when threads waited in fewer than {@link #MIN_WINDOWS} windows, or when the
     * pool was out of connections while they waited.
     */
    static String clause(Evidence ev, Numbers n) {
        if (!CpuSaturationRule.saturatedByThisJvm(ev)) return null;
        Optional<double[]> pending = ev.column("pools", "dbPending");
        Optional<double[]> active = ev.column("pools", "dbActive");
        Optional<double[]> total = ev.column("pools", "dbTotal");
        if (pending.isEmpty() || active.isEmpty() || total.isEmpty()) return null;
        int windows = 0;
        double free = 0, size = 0;
        for (int i = 0; i < pending.get().length; i++) {
            double p = pending.get()[i], a = active.get()[i], t = total.get()[i];
            if (!(p >= 1) || !Double.isFinite(a) || !(t >= 1)) continue;
            windows++;
            free += Math.max(0, t - a);
            size += t;
        }
        if (windows < MIN_WINDOWS || free < FREE_SHARE * size) return null;
        return "this JVM keeps the CPU saturated (" + n.tag(Fmt.pct(CpuSaturationRule.busyP90(ev)), "series/cpu#machineTotal")
                + " at p90, " + n.tag(Fmt.pct(CpuSaturationRule.jvmShare(ev)), "series/cpu#jvmUser") + " of it this JVM), and while"
                + " threads waited " + n.tag(Fmt.num(free / windows), "series/pools#dbActive") + " of the pool's "
                + n.tag(Fmt.num(size / windows), "series/pools#dbTotal") + " connections were free on average: the waiters"
                + " waited for a core to take them, not for a connection";
    }
}
