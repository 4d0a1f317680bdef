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
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The framework probes as one unit: weaves every hook whose class is loaded through the
 * instrumentation engine (so {@code reset} and detach restore the original bytecode), and
 * samples pools and requests once a second into windows. Started by {@code collect start} or by
 * the first probe view; one set per agent. A hooked class loaded after the weave is woven at the
 * next view or {@code collect start}: diagnose weaves, warms the service up, then starts.
 */
public final class Probes {

    private static final AtomicReference<Probes> CURRENT = new AtomicReference<>();
    static final long WINDOW_MS = 1_000;

    final Thresholds thresholds = new Thresholds();
    final PoolProbe pools = new PoolProbe();
    final RequestProbe requests = new RequestProbe(pools);
    final CallProbe calls = new CallProbe(thresholds, pools);
    final BeanProbe beans = new BeanProbe();
    final LoggingProbe logging = new LoggingProbe();
    final DiscardedLogs discardedLogs = new DiscardedLogs();
    final CacheKeys cacheKeys = new CacheKeys();
    final ConstructionProbe construction = new ConstructionProbe();
    final LruMaps lruMaps = new LruMaps();
    /** Sampled once a window while the container runs requests on virtual threads. */
    final VirtualThreadLocks vthreadLocks = new VirtualThreadLocks(WINDOW_MS);
    final Windows windows = new Windows();
    final List<String> woven = new ArrayList<>();
    /** The call probe's hooks by name, so {@link #callsWoven} answers for every hook it has. */
    private final Set<String> callHooks = new HashSet<>();
    /** Every hook, in {@link #hooks()} order. */
    private List<Hook> hooks;
    /** Per hook, in {@link #hooks()} order: its dispatcher id, or -1 when it wove nothing. */
    private final List<Integer> hookIds = new ArrayList<>();
    /** A family hook's woven classes ({@link Hook#family}), by hook: weak, so a redeployed application's loader can go. */
    private final Map<String, Set<Class<?>>> familyWoven = new HashMap<>();
    private int wovenMethods;
    /** When the first weave was in: the views' counts and rates cover the time since (a weave can take seconds on a busy JVM). */
    private volatile long startMs = System.currentTimeMillis();
    /** The first weave's, then one per later weave ({@link #weaveLate}) of classes loaded since. */
    private final List<Installation> installations = new CopyOnWriteArrayList<>();
    /** Why weaving those failed, if it did; null otherwise. */
    private volatile String lateError;
    private Thread sampler;
    /** Start of the window being sampled: the sampler's until {@link #close} has joined it. */
    private volatile long windowStart;

    private Probes() { }

    /** The running probes, starting them if needed, with the hooks whose classes have loaded since woven. */
    public static Probes ensure(Instrumentation inst) throws CommandException {
        synchronized (Probes.class) {
            Probes p = CURRENT.get();
            if (p != null && p.live()) {
                p.weaveLate(inst);
                return p;
            }
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
        for (Installation i : installations) if (i.closed()) return false;
        return true;
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
        hooks.addAll(discardedLogs.hooks());
        hooks.addAll(cacheKeys.hooks());
        hooks.addAll(construction.hooks());
        hooks.add(lruMaps.hook());
        return hooks;
    }

    private void install(Instrumentation inst) throws CommandException {
        if (!bridgeHasProbeEntries()) {
            throw new CommandException("refused: the Bridge on the boot class path is an older culprit's (attached to this"
                    + " JVM before) and lacks the probe entry points; woven code would fail to link. Restart the JVM.");
        }
        hooks = hooks();
        for (int i = 0; i < hooks.size(); i++) hookIds.add(-1);
        Installation first = weave(inst);
        if (first != null) installations.add(first);
        startMs = System.currentTimeMillis();
        startSampler();
    }

    /**
     * Weaves the hooks that have not woven yet and whose classes are now loaded, and a family
     * hook's implementations loaded since its last weave, as one installation; records their ids
     * in {@link #hookIds} (a family hook keeps its first). Null when nothing new wove.
     */
    private Installation weave(Instrumentation inst) throws CommandException {
        Set<String> loaded = new HashSet<>();
        for (Class<?> c : inst.getAllLoadedClasses()) loaded.add(c.getName());
        Plan plan = Plan.forProbes();
        List<Integer> ids = new ArrayList<>();
        List<Runnable> wovenFamilies = new ArrayList<>();  // notes a family hook's classes as woven, once the weave is in
        for (int slot = 0; slot < hooks.size(); slot++) {
            Hook h = hooks.get(slot);
            // one scan of the loaded classes here, not one per hook: this runs at every view
            if (!loaded.contains(h.className) || (!h.family() && hookIds.get(slot) >= 0)) continue;
            List<MethodTarget> targets;
            try {
                targets = h.targets(inst);
            } catch (CommandException absent) {
                continue;  // not weavable here
            }
            Set<Class<?>> done = h.family() ? familyWoven.computeIfAbsent(h.toString(), k -> weakSet()) : Set.of();
            int id = hookIds.get(slot);
            for (MethodTarget t : targets) {
                // culprit's own copy of a library (its Jackson) is not the application's
                if (isAgentsOwn(t.type) || !Modules.seesBridge(t.type) || done.contains(t.type)) continue;
                if (id < 0) {
                    if (h.jdk) Modules.letReadBridge(inst, t.type);
                    id = Dispatcher.INSTANCE.register(h);
                    ids.add(id);
                    woven.add(h.toString());
                }
                plan.advise(t, id, h.reads);
                if (h.family()) wovenFamilies.add(() -> done.add(t.type));
            }
            hookIds.set(slot, id);
        }
        if (plan.classes().isEmpty()) return null;
        Installation installation = Instrumenter.install(inst, plan, ids);
        wovenFamilies.forEach(Runnable::run);
        wovenMethods += plan.methodCount();
        return installation;
    }

    private static Set<Class<?>> weakSet() {
        return Collections.newSetFromMap(new WeakHashMap<>());
    }

    /**
     * Weaves the hooks whose classes were first loaded since the last weave (the service's first
     * prepared statement, its first outbound call; often in diagnose's own warm-up). Only those
     * classes are retransformed, so only the code that inlined them recompiles. A failure leaves
     * the woven hooks counting and is kept for the status line ({@link #lateWeaveError}).
     */
    private void weaveLate(Instrumentation inst) {
        try {
            Installation more = weave(inst);
            if (more != null) installations.add(more);
            lateError = null;
        } catch (CommandException e) {
            lateError = e.getMessage();
        }
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
            if (old == null || !old.live()) {
                return ensure(inst);
            }
            Probes fresh = new Probes();
            fresh.hooks = fresh.hooks();
            for (int i = 0; i < fresh.hooks.size(); i++) {
                int id = old.hookIds.get(i);
                fresh.hookIds.add(id);
                if (id >= 0) Dispatcher.INSTANCE.set(id, fresh.hooks.get(i));
            }
            fresh.woven.addAll(old.woven);
            fresh.familyWoven.putAll(old.familyWoven);
            fresh.wovenMethods = old.wovenMethods;
            fresh.installations.addAll(old.installations);
            old.installations.clear();  // handed over: closing the old set must not reset them
            old.close();
            fresh.weaveLate(inst);
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
                calls.drain();  // rings of threads that ended (one per task where threads are not pooled) go now
                if (pools.onVirtualThreads()) vthreadLocks.sample();
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
        for (Installation i : installations) i.close();
    }

    /** Observed seconds so far. */
    double seconds() {
        return Math.max(0.001, (System.currentTimeMillis() - startMs) / 1000.0);
    }

    /**
     * How long the views' counts cover, for a view that found nothing: the first view started the
     * probes, so its empty answer says to ask again rather than that nothing happens.
     */
    String since() {
        double s = seconds();
        return s < 2 ? "since the probes started just now (run it again after some requests)"
                : String.format("in the %.0f s since the probes started", s);
    }

    /** Why the classes loaded since the first weave could not be woven, at the last try; null when they were (or none came). */
    public String lateWeaveError() {
        return lateError;
    }

    /** Methods woven, in every class a hook wove (a family hook's classes included). */
    public int wovenCount() {
        return wovenMethods;
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
