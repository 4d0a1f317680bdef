package io.culprit.agent.jfr;

import io.culprit.agent.Lifecycle;
import io.culprit.jfr.CulpritSettings;
import io.culprit.jfr.ForeignEvents;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.Recording;
import jdk.jfr.StackTrace;

/**
 * Keeps JFR's exception events within a budget. Each {@code jdk.JavaExceptionThrow} event walks
 * the throwing thread's stack and pools its message; a service that threw 200 caught
 * NumberFormatExceptions per request served 75 % fewer requests while they were recorded. So
 * culprit's recordings and streams do not enable the exception events themselves
 * ({@link CulpritSettings#withoutThrows}): while any of them holds a {@link Lease}, this gate's own
 * recording enables them, and a tick every 100 ms (a JFR periodic hook, on JFR's own thread) reads
 * how many throwables JFR's tracer counted. Above {@link #BUDGET_PER_S} the gate closes the events
 * for as long as brings the events kept back to the budget (at most {@link #MAX_CLOSED_NS}), then
 * opens them again for a tick.
 *
 * <p>JFR hands every running recording the events any of them enabled, so the gated events reach
 * culprit's recordings and streams as before, as a sample; {@code jdk.ExceptionStatistics} still
 * counts every throwable, and the collectors scale by it. JDK 25+ throttles the events itself (the
 * {@code throttle} setting); where the tracer's counter cannot be read the gate stays open.
 */
public final class ExceptionGate {
    static final String NAME = "culprit-exceptions";
    static final String EXCEPTIONS = "jdk.JavaExceptionThrow";
    /** Exception events kept per second: ~1 % of a core at ~10 µs each. */
    static final long BUDGET_PER_S = 1_000;
    static final long MAX_CLOSED_NS = 5_000_000_000L;
    static final String TICK = "io.culprit.ExceptionGateTick";

    /** The periodic hook's event: never committed, it only gives the hook its period. */
    @Name(TICK)
    @Label("culprit exception gate tick")
    @Enabled(false)
    @StackTrace(false)
    @Period("100 ms")
    public static final class Tick extends Event { }

    private static final Runnable HOOK = ExceptionGate::tick;
    private static Recording recording;
    private static int leases;
    private static LongSupplier throwables;
    private static boolean open;
    private static long lastCount, lastNs, closedUntilNs;
    /** Ticks that closed the gate since the gate's recording started, for status lines and tests. */
    private static long closings;
    private static boolean shutdownHooked;

    private ExceptionGate() { }

    /** Held by a recording or stream of culprit's that reads exception events. */
    public static final class Lease implements AutoCloseable {
        private boolean closed;

        private Lease() { }

        @Override
        public void close() {
            synchronized (ExceptionGate.class) {
                if (closed) return;
                closed = true;
                if (--leases == 0) stop();
            }
        }
    }

    /** Starts the gate's recording if none runs; never throws: without JFR there is nothing to gate. */
    public static synchronized Lease lease(Instrumentation inst) {
        if (leases++ == 0) {
            try {
                start(inst);
            } catch (RuntimeException | LinkageError e) {
                stop();
            }
        }
        return new Lease();
    }

    private static void start(Instrumentation inst) {
        if (!FlightRecorder.isAvailable()) return;
        JfrBoot.ensure();
        throwables = counter(inst);
        // Again after an earlier stop unregistered it: addPeriodicEvent refuses an unregistered class.
        FlightRecorder.register(Tick.class);
        FlightRecorder.addPeriodicEvent(Tick.class, HOOK);
        Map<String, String> settings = CulpritSettings.throwsOnly(BUDGET_PER_S);
        settings.put(TICK + "#enabled", "true");
        settings.put(TICK + "#period", "100 ms");
        // The collectors scale a sample by the throwables counted over the statistics' span: at the
        // gate's own pace, a live window of a second or two still has a span to scale by.
        settings.put("jdk.ExceptionStatistics#enabled", "true");
        settings.put("jdk.ExceptionStatistics#period", "100 ms");
        settings = ForeignEvents.off(settings);
        Recording r = new Recording(settings);
        r.setName(NAME);
        // Nothing of its own to keep: the events reach culprit's other recordings.
        r.setToDisk(false);
        open = true;
        closings = 0;
        lastNs = System.nanoTime();
        lastCount = throwables == null ? 0 : throwables.getAsLong();
        r.start();
        recording = r;
        ForeignEvents.watch(r, settings);
        // Detaching ends every lease's owner, but a lease leaked by a failed command must not outlive it.
        if (!shutdownHooked) Lifecycle.addShutdownHook(ExceptionGate::shutdown);
        shutdownHooked = true;
    }

    private static synchronized void shutdown() {
        leases = 0;
        stop();
    }

    private static void stop() {
        // addPeriodicEvent registered Tick, a class of culprit's loader: JFR's metadata would keep it, and
        // through it the loader and every agent class, after detach.
        if (FlightRecorder.removePeriodicEvent(HOOK)) FlightRecorder.unregister(Tick.class);
        if (recording != null) {
            ForeignEvents.forget(recording);
            recording.close();
        }
        recording = null;
        throwables = null;
    }

    /** Every 100 ms on JFR's periodic thread while the gate's recording runs. */
    private static synchronized void tick() {
        Recording r = recording;
        LongSupplier counter = throwables;
        if (r == null || counter == null) return;
        ForeignEvents.recheck();
        long now = System.nanoTime(), count = counter.getAsLong();
        long dn = count - lastCount, dt = Math.max(1, now - lastNs);
        lastCount = count;
        lastNs = now;
        if (open) {
            double perS = dn * 1e9 / dt;
            if (perS <= BUDGET_PER_S) return;
            // Closed for as long as the events just kept would last at the budget.
            closedUntilNs = now + Math.min(MAX_CLOSED_NS, (long) (dt * (perS / BUDGET_PER_S - 1)));
            r.disable(EXCEPTIONS);
            open = false;
            closings++;
        } else if (now - closedUntilNs >= 0) {
            r.enable(EXCEPTIONS).withStackTrace();
            open = true;
        }
    }

    /** For status lines: how the exception events are kept. */
    static synchronized String describe() {
        if (recording == null) return "no exception events (no flight recorder)";
        return throwables == null ? "exception events all kept (JFR's throwable counter is not readable here)"
                : "exception events sampled above " + BUDGET_PER_S + "/s";
    }

    /** True while the exception events are let through. */
    static synchronized boolean open() {
        return recording != null && open;
    }

    /** True while the gate's recording runs. */
    static synchronized boolean running() {
        return recording != null;
    }

    static synchronized long closings() {
        return closings;
    }

    /** True when the gate can read how many throwables JFR counted (and so can close). */
    static synchronized boolean gating() {
        return throwables != null;
    }

    /**
     * JFR's own count of throwables: {@code ThrowableTracer}'s counter, in jdk.jfr up to JDK 21 and
     * in java.base since. Neither package is exported; the agent opens it to itself alone.
     */
    static LongSupplier counter(Instrumentation inst) {
        for (String name : new String[] {"jdk.jfr.internal.instrument.ThrowableTracer", "jdk.internal.event.ThrowableTracer"}) {
            try {
                Class<?> c = Class.forName(name, false, ClassLoader.getPlatformClassLoader());
                Module self = ExceptionGate.class.getModule();
                if (!c.getModule().isOpen(c.getPackageName(), self)) {
                    inst.redefineModule(c.getModule(), Set.of(), Map.of(), Map.of(c.getPackageName(), Set.of(self)), Set.of(), Map.of());
                }
                Field f = c.getDeclaredField("numThrowables");
                f.setAccessible(true);
                AtomicLong n = (AtomicLong) f.get(null);
                return n::get;
            } catch (ReflectiveOperationException | RuntimeException e) {
                // Not this JDK's layout: try the next, or stay open.
            }
        }
        return null;
    }
}
