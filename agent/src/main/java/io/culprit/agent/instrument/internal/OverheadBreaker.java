package io.culprit.agent.instrument.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Stops a command whose instrumentation costs the host too much. Arthas users saw CPU go from
 * 39 % to 300 % with trace on a hot method. Two budgets, both read on the command's own thread so
 * the hot path pays nothing for them:
 * <ul>
 *   <li>events per second, which listeners already count;</li>
 *   <li>the agent's share of the process's CPU time: woven events × their cost per event
 *   (calibrated on this JVM before the command starts) + the work measured on application
 *   threads for the results actually captured + the command thread's own CPU (rendering). It trips when the share stays over budget for
 *   1.5 s and the cost is material (≥ 5 % of one core).</li>
 * </ul>
 */
public final class OverheadBreaker {

    public static final long DEFAULT_BUDGET = 200_000;
    /** Percent of the process's CPU time; 100 turns the check off. */
    public static final long DEFAULT_CPU_BUDGET = 10;
    /**
     * Below this absolute cost (share of one core) the CPU budget never trips: an idle process
     * makes any agent cost a large share of very little, and that harms nobody.
     */
    private static final double FLOOR_OF_ONE_CORE = 0.05;
    /**
     * Windows in a row over the CPU budget before the command stops: a command's first moments
     * include one-off costs (the first records rendered while their classes load and warm up).
     */
    private static final int SUSTAINED_WINDOWS = 3;
    private static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final LongSupplier events;
    private final LongSupplier workNanos;
    private final LongSupplier processCpuNanos;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final long budgetPerSecond;
    private final double cpuBudget;
    private volatile double eventCostNanos;
    private long lastCount;
    private long lastWork;
    private long lastProcessCpu;
    private long lastThreadCpu;
    private long lastNanos;
    private int windowsOver;

    public OverheadBreaker(LongSupplier events, LongSupplier workNanos, long budgetPerSecond, long cpuBudgetPercent) {
        this(events, workNanos, processCpu(), budgetPerSecond, cpuBudgetPercent);
    }

    /** {@code processCpuNanos} returns -1 when the JVM cannot tell: the CPU budget is then off. */
    OverheadBreaker(LongSupplier events, LongSupplier workNanos, LongSupplier processCpuNanos,
                    long budgetPerSecond, long cpuBudgetPercent) {
        this.events = events;
        this.workNanos = workNanos;
        this.processCpuNanos = processCpuNanos;
        this.budgetPerSecond = budgetPerSecond;
        this.cpuBudget = cpuBudgetPercent >= 100 ? Double.MAX_VALUE : cpuBudgetPercent / 100.0;
    }

    /** The measured cost of one counted event on an application thread, in ns. */
    public void eventCost(double nanos) {
        this.eventCostNanos = nanos;
    }

    /** Starts the first window: call on the command thread once the weaving is live. */
    public void start() {
        lastNanos = System.nanoTime();
        lastCount = events.getAsLong();
        lastWork = workNanos.getAsLong();
        lastProcessCpu = processCpuNanos.getAsLong();
        lastThreadCpu = threadCpu();
    }

    /**
     * Call on the command thread at least once a second. Returns null while within budget,
     * otherwise the message for the user: what was measured, the budget, and how to narrow.
     */
    public String check(String command) {
        long now = System.nanoTime();
        long elapsed = now - lastNanos;
        if (elapsed < WINDOW_NANOS) {
            return null;
        }
        long count = events.getAsLong();
        long work = workNanos.getAsLong();
        long processCpu = processCpuNanos.getAsLong();
        long threadCpu = threadCpu();
        double seconds = elapsed / 1e9;
        double rate = (count - lastCount) / seconds;
        double eventNanos = (count - lastCount) * eventCostNanos;
        double otherNanos = (work - lastWork) + Math.max(0, threadCpu - lastThreadCpu);
        boolean known = lastProcessCpu >= 0 && processCpu >= 0;
        long processNanos = processCpu - lastProcessCpu;
        lastCount = count;
        lastWork = work;
        lastProcessCpu = processCpu;
        lastThreadCpu = threadCpu;
        lastNanos = now;
        if (rate > budgetPerSecond) {
            return String.format("stopped %s: %,.0f instrumented events/s exceeds the budget of %,d/s;"
                    + " narrow the class or method pattern, add a condition, lower --depth, or raise --budget",
                    command, rate, budgetPerSecond);
        }
        double share = overBudget(eventNanos + otherNanos, known ? processNanos : -1, elapsed);
        windowsOver = share < 0 ? 0 : windowsOver + 1;
        if (windowsOver < SUSTAINED_WINDOWS) {
            return null;
        }
        return String.format("stopped %s: its instrumentation took an estimated %.0f%% of the process's CPU"
                + " (%,.0f events/s × %.0f ns, plus %.1f ms/s capturing and printing results), over the budget of %.0f%%;"
                + " narrow the class or method pattern, add a condition, use -n or a lower --rate, lower --depth,"
                + " or raise --cpu-budget", command, 100 * share, rate, eventCostNanos, otherNanos / seconds / 1e6,
                100 * cpuBudget);
    }

    /**
     * The share of the process's CPU the agent took in a window, or -1 while within budget, below
     * the floor, or when {@code processNanos} is unknown (-1).
     */
    double overBudget(double agentNanos, long processNanos, long elapsedNanos) {
        if (processNanos <= 0 || cpuBudget == Double.MAX_VALUE) {
            return -1;
        }
        double share = agentNanos / processNanos;
        boolean material = agentNanos > FLOOR_OF_ONE_CORE * elapsedNanos;
        return share > cpuBudget && material ? Math.min(share, 1.0) : -1;
    }

    private long threadCpu() {
        try {
            return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : 0;
        } catch (UnsupportedOperationException e) {
            return 0;
        }
    }

    private static LongSupplier processCpu() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            com.sun.management.OperatingSystemMXBean sun = (com.sun.management.OperatingSystemMXBean) os;
            return sun::getProcessCpuTime;
        }
        return () -> -1;
    }
}
