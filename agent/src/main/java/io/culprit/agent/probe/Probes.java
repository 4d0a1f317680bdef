package io.culprit.agent.probe;

import io.culprit.agent.Lifecycle;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.Installation;
import io.culprit.agent.instrument.Instrumenter;
import io.culprit.agent.instrument.MethodTarget;
import io.culprit.agent.instrument.Plan;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.bootstrap.Bridge;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The framework probes as one unit: weaves every hook whose class is loaded through the
 * instrumentation engine (so {@code reset} and detach restore the original bytecode), and
 * samples pools and requests once a second into windows. Started by {@code collect start} or by
 * the first probe view; one set per agent. Classes loaded after the start are not woven: the
 * probes look at a service that has already served traffic, which is what diagnose attaches to.
 */
public final class Probes {

    private static final AtomicReference<Probes> CURRENT = new AtomicReference<>();
    static final long WINDOW_MS = 1_000;

    final Thresholds thresholds = new Thresholds();
    final PoolProbe pools = new PoolProbe();
    final RequestProbe requests = new RequestProbe(pools);
    final CallProbe calls = new CallProbe(thresholds);
    final BeanProbe beans = new BeanProbe();
    final LoggingProbe logging = new LoggingProbe();
    final ConstructionProbe construction = new ConstructionProbe();
    final Windows windows = new Windows();
    final List<String> woven = new ArrayList<>();
    /** The call probe's hooks by name, so {@link #callsWoven} answers for every hook it has. */
    private final Set<String> callHooks = new HashSet<>();
    /** Per hook, in {@link #hooks()} order: its dispatcher id, or -1 when it wove nothing. */
    private final List<Integer> hookIds = new ArrayList<>();
    final long startMs = System.currentTimeMillis();
    private volatile Installation installation;
    private Thread sampler;
    /** Start of the window being sampled: the sampler's until {@link #close} has joined it. */
    private volatile long windowStart;

    private Probes() { }

    /** The running probes, starting them if needed. */
    public static Probes ensure(Instrumentation inst) throws CommandException {
        Probes p = CURRENT.get();
        if (p != null && p.live()) return p;
        synchronized (Probes.class) {
            p = CURRENT.get();
            if (p != null && p.live()) return p;
            if (p != null) p.close();
            Probes fresh = new Probes();
            fresh.install(inst);
            CURRENT.set(fresh);
            Lifecycle.addShutdownHook(fresh::close);
            return fresh;
        }
    }

    /** The running probes, or null. */
    public static Probes current() {
        Probes p = CURRENT.get();
        return p != null && p.live() ? p : null;
    }

    /** Stops the running probes (if any) and returns them for their final evidence. */
    public static Probes stop() {
        Probes p = CURRENT.getAndSet(null);
        if (p != null) p.close();
        return p;
    }

    /** False once {@code reset} removed the weaving: the probes then start over on next use. */
    boolean live() {
        Installation i = installation;
        return i == null || !i.closed();
    }

    /** Every hook of every probe, always in the same order (see {@link #renew}). */
    private List<Hook> hooks() {
        List<Hook> hooks = new ArrayList<>();
        hooks.addAll(pools.hooks());
        hooks.addAll(requests.hooks());
        List<Hook> callHooks = calls.hooks();
        for (Hook h : callHooks) this.callHooks.add(h.toString());
        hooks.addAll(callHooks);
        hooks.addAll(beans.hooks());
        hooks.addAll(logging.hooks());
        hooks.addAll(construction.hooks());
        return hooks;
    }

    private void install(Instrumentation inst) throws CommandException {
        if (!bridgeHasProbeEntries()) {
            throw new CommandException("refused: the Bridge on the boot class path is an older culprit's (attached to this"
                    + " JVM before) and lacks the probe entry points; woven code would fail to link. Restart the JVM.");
        }
        List<Hook> hooks = hooks();
        Plan plan = Plan.forProbes();
        List<Integer> ids = new ArrayList<>();
        for (Hook h : hooks) {
            List<MethodTarget> targets;
            try {
                targets = h.targets(inst);
            } catch (CommandException absent) {
                hookIds.add(-1);
                continue;  // that framework is not in this application
            }
            int id = -1;
            for (MethodTarget t : targets) {
                // culprit's own copy of a library (its Jackson) is not the application's
                if (isAgentsOwn(t.type) || !Modules.seesBridge(t.type)) continue;
                if (id < 0) {
                    if (h.jdk) Modules.letReadBridge(inst, t.type);
                    id = Dispatcher.INSTANCE.register(h);
                    ids.add(id);
                    woven.add(h.toString());
                }
                plan.advise(t, id, h.reads);
            }
            hookIds.add(id);
        }
        if (!ids.isEmpty()) installation = Instrumenter.install(inst, plan, ids);
        startSampler();
    }

    private void startSampler() {
        sampler = new Thread(this::sampleLoop, "culprit-probes");
        sampler.setDaemon(true);
        sampler.start();
    }

    /**
     * Fresh counters on the weaving already in place: the woven ids are pointed at a new set of
     * hooks, no class is retransformed. A retransformation deoptimizes the compiled code that
     * inlined the woven methods (and, the first time in a JVM's life, all compiled code: HotSpot
     * has not recorded dependencies before), so re-weaving per collection would make every
     * collection measure the service while it recompiles. Returns the probes now running.
     */
    public static Probes renew(Instrumentation inst) throws CommandException {
        synchronized (Probes.class) {
            Probes old = CURRENT.get();
            if (old == null || !old.live() || old.installation == null) {
                return ensure(inst);
            }
            Probes fresh = new Probes();
            List<Hook> hooks = fresh.hooks();
            for (int i = 0; i < hooks.size(); i++) {
                int id = old.hookIds.get(i);
                if (id >= 0) Dispatcher.INSTANCE.set(id, hooks.get(i));
            }
            fresh.hookIds.addAll(old.hookIds);
            fresh.woven.addAll(old.woven);
            fresh.installation = old.installation;
            old.installation = null;  // handed over: closing the old set must not reset it
            old.close();
            fresh.startSampler();
            CURRENT.set(fresh);
            Lifecycle.addShutdownHook(fresh::close);
            return fresh;
        }
    }

    /**
     * The Bridge is appended to the boot path once per JVM: after an older culprit's attach and
     * detach, the one found is that culprit's, and code woven to call methods it lacks would
     * throw NoSuchMethodError into the application.
     */
    private static boolean bridgeHasProbeEntries() {
        try {
            Bridge.class.getMethod("probeEnter", int.class, Object.class, Object.class);
            Bridge.class.getMethod("probeExit", int.class, long.class, Object.class, Object.class, Object.class,
                    Object.class, Throwable.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /** In a target the agent has its own isolated loader; in-process tests share the application's. */
    private static boolean isAgentsOwn(Class<?> c) {
        ClassLoader agent = Probes.class.getClassLoader();
        return agent != ClassLoader.getSystemClassLoader() && c.getClassLoader() == agent;
    }

    private void sampleLoop() {
        long next = System.currentTimeMillis() + WINDOW_MS;
        windowStart = System.currentTimeMillis();
        try {
            while (!Thread.currentThread().isInterrupted()) {
                long wait = next - System.currentTimeMillis();
                if (wait > 0) Thread.sleep(wait);  // a timer tick, not a stand-in for a condition
                long now = System.currentTimeMillis();
                windows.add(windowStart, pools.sample(), requests.sample((now - windowStart) / 1000.0));
                windowStart = now;
                next += WINDOW_MS;
            }
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void close() {
        if (sampler != null) {
            sampler.interrupt();
            try {
                sampler.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // The last, partial window: a collection shorter than a window still gets its sample
            // (an executor found at its first use a moment before the stop, the final pool state).
            long now = System.currentTimeMillis();
            if (!sampler.isAlive() && now > windowStart) {
                windows.add(windowStart, pools.sample(), requests.sample((now - windowStart) / 1000.0));
            }
            sampler = null;
        }
        Installation i = installation;
        if (i != null) i.close();
    }

    /** Observed seconds so far. */
    double seconds() {
        return Math.max(0.001, (System.currentTimeMillis() - startMs) / 1000.0);
    }

    public int wovenCount() {
        return woven.size();
    }

    /** A container hook wove: requests are observed (Tomcat, Jetty or Undertow). */
    boolean serverWoven() {
        return RequestProbe.CONTAINERS.stream().anyMatch(this::woven);
    }

    boolean woven(String className) {
        return woven.stream().anyMatch(w -> w.startsWith(className + "."));
    }

    /** A call hook wove (SQL, HTTP or Redis): the calls table is written even when no call came. */
    boolean callsWoven() {
        return woven.stream().anyMatch(callHooks::contains);
    }

    Map<String, Object> meta() {
        return Map.of("seconds", seconds(), "requests", requests.count());
    }
}
