package io.culprit.agent.jfr;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts throwables that escape to the top of their thread, by type: the JVM's default
 * uncaught-exception handler is wrapped for the observation and restored after. Everything else
 * JFR saw thrown was caught somewhere. Threads with their own handler are not seen (their
 * throwables count as caught: the application handled them).
 */
final class EscapeCounter implements Thread.UncaughtExceptionHandler, AutoCloseable {
    private final Map<String, LongAdder> byType = new ConcurrentHashMap<>();
    private final Thread.UncaughtExceptionHandler previous;

    EscapeCounter() {
        previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler(this);
    }

    @Override
    public void uncaughtException(Thread t, Throwable e) {
        byType.computeIfAbsent(e.getClass().getName(), k -> new LongAdder()).increment();
        if (previous != null) {
            previous.uncaughtException(t, e);
        } else {
            // What ThreadGroup.uncaughtException prints when no handler is set: the target's output is unchanged.
            System.err.print("Exception in thread \"" + t.getName() + "\" ");
            e.printStackTrace(System.err);
        }
    }

    Map<String, Long> escaped() {
        Map<String, Long> out = new ConcurrentHashMap<>();
        byType.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** Restores the previous handler unless someone replaced ours meanwhile (then theirs stays). */
    @Override
    public void close() {
        if (Thread.getDefaultUncaughtExceptionHandler() == this) Thread.setDefaultUncaughtExceptionHandler(previous);
    }
}
