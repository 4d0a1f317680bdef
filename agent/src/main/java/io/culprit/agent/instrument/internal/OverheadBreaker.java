package io.culprit.agent.instrument.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Stops a command whose woven code fires too often. Arthas users saw CPU go from 39 % to 300 %
 * with trace on a hot method; a rate of instrumented events is the cheapest proxy for that cost
 * that the agent can read without touching the hot path again (listeners already count).
 */
public final class OverheadBreaker {

    public static final long DEFAULT_BUDGET = 200_000;

    private final LongSupplier events;
    private final long budgetPerSecond;
    private long lastCount;
    private long lastNanos;

    public OverheadBreaker(LongSupplier events, long budgetPerSecond) {
        this.events = events;
        this.budgetPerSecond = budgetPerSecond;
        this.lastNanos = System.nanoTime();
    }

    /**
     * Call at least once a second. Returns null while within budget, otherwise the message for
     * the user: what was measured, the budget, and how to narrow the command.
     */
    public String check(String command) {
        long now = System.nanoTime();
        long elapsed = now - lastNanos;
        if (elapsed < TimeUnit.MILLISECONDS.toNanos(500)) {
            return null;
        }
        long count = events.getAsLong();
        double rate = (count - lastCount) * 1e9 / elapsed;
        lastCount = count;
        lastNanos = now;
        if (rate <= budgetPerSecond) {
            return null;
        }
        return String.format("stopped %s: %,.0f instrumented events/s exceeds the budget of %,d/s;"
                + " narrow the class or method pattern, add a condition, lower --depth, or raise --budget",
                command, rate, budgetPerSecond);
    }
}
