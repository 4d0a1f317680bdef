package io.culprit.agent.instrument;

import io.culprit.agent.instrument.expr.EvalException;
import io.culprit.agent.instrument.expr.Env;
import io.culprit.agent.instrument.expr.Expression;
import io.culprit.agent.instrument.internal.CallSiteVisitor;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.bootstrap.Bridge;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Builds the call tree of each root invocation on the thread that runs it. The root method's
 * entry/exit advice opens and closes a per-thread tree; woven call sites push and pop nodes.
 * Outside a root invocation a call-site event costs one array lookup. A callee that throws
 * skips its {@code afterCall}: the next {@code afterCall} (or the root's exit) closes the
 * nodes left open, marking them as thrown.
 *
 * <p>One clock read per timing point, and fewer where the weaver found two points adjacent
 * ({@link CallSiteVisitor.Adjacency}): such a call's end, or such a root's start, is left
 * pending and settled by the next timing point's read. A root with one callee and nothing
 * costly around it is timed with two reads instead of four.
 */
final class TraceListener extends Listener implements Plan.SiteRegistrar, CallSiteVisitor.Adjacency {

    /** Where a site id points: what it calls and from which line. */
    static final class Site {
        final String owner;
        final String name;
        final int line;

        Site(String owner, String name, int line) {
            this.owner = owner;
            this.name = name;
            this.line = line;
        }
    }

    /** Flags by id: the call's end may be read by the next timing point. */
    static final byte END_SHARED = 1;
    /** Flags by id: the root's start may be read by its first woven call. */
    static final byte START_SHARED = 2;
    private static final int FLUSH = 1024;
    /** Root invocations a thread counts before adding them to the run's shared counter. */
    private static final int ROOT_FLUSH = 256;
    private static final int SLOTS = 256;

    private final CommandRun run;
    private final Expression condition;
    private final boolean skipJdk;
    private final Map<String, Integer> siteIds = new ConcurrentHashMap<>();
    final Map<Integer, Site> sites = new ConcurrentHashMap<>();
    final Map<Integer, MethodTarget> roots = new ConcurrentHashMap<>();
    final List<Integer> ids = new ArrayList<>();
    /**
     * Written while weaving, before the woven code runs; read on every event. A stale read only
     * costs a clock read: flags are only ever set.
     */
    private volatile byte[] flags = new byte[64];
    /**
     * Each thread's state, at the slot of its thread id (ids are never reused in a JVM's life):
     * one array load instead of a ThreadLocal and a WeakReference. It lives in this listener, not
     * in the application thread, so a reset that strikes mid-invocation pins nothing. A thread
     * whose slot is held by a live thread uses {@link #local} instead: the thread's own map then
     * holds only JDK objects, because a value of an agent class stranded in an application
     * thread's ThreadLocalMap would pin the detached agent's whole class loader. (A map keyed by
     * Thread costs an identity hash per event, a slow runtime call once its monitor is inflated.)
     */
    private final TraceState[] byThread = new TraceState[SLOTS];
    private final ThreadLocal<WeakReference<TraceState>> local = new ThreadLocal<>();
    /** Keeps every state alive while this listener lives. */
    private final Set<TraceState> states = ConcurrentHashMap.newKeySet();
    /** The tool's own cost per call-site pair, measured before install; subtracted when rendering. */
    volatile double pairCostNanos;
    /** The same for a call whose end shares the next timing point's clock read. */
    volatile double sharedPairCostNanos;

    TraceListener(CommandRun run, Expression condition, boolean skipJdk) {
        this.run = run;
        this.condition = condition;
        this.skipJdk = skipJdk;
    }

    int addRoot(MethodTarget target) {
        int id = Dispatcher.INSTANCE.register(this);
        roots.put(id, target);
        synchronized (ids) {
            ids.add(id);
        }
        return id;
    }

    @Override
    public int site(MethodTarget caller, int index, String owner, String name, String descriptor, int line) {
        String dotted = owner.replace('/', '.');
        if (skipJdk && TargetResolver.isJdk(dotted)) {
            return -1;
        }
        return siteIds.computeIfAbsent(System.identityHashCode(caller.type) + caller.type.getName() + caller.method.key() + "#" + index, k -> {
            int id = Dispatcher.INSTANCE.register(this);
            sites.put(id, new Site(dotted, name, line));
            synchronized (ids) {
                ids.add(id);
            }
            return id;
        });
    }

    @Override
    public boolean isRoot(MethodTarget method) {
        return roots.containsValue(method);
    }

    @Override
    public void startShared(MethodTarget root) {
        roots.forEach((id, target) -> {
            if (target == root) {
                flag(id, START_SHARED);
            }
        });
    }

    @Override
    public void endShared(int site) {
        flag(site, END_SHARED);
    }

    synchronized void flag(int id, byte flag) {
        byte[] f = flags;
        if (id >= f.length) {
            f = Arrays.copyOf(f, Math.max(id + 1, f.length * 2));
        }
        f[id] |= flag;
        flags = f;
    }

    boolean has(int id, byte flag) {
        byte[] f = flags;
        return id < f.length && (f[id] & flag) != 0;
    }

    private TraceState current() {
        long tid = Thread.currentThread().getId();
        TraceState st = byThread[(int) tid & (SLOTS - 1)];
        if (st != null && st.tid == tid) {
            return st;
        }
        WeakReference<TraceState> ref = local.get();
        return ref == null ? null : ref.get();
    }

    /** This thread's state from now on: its slot if free (or held by a dead thread), else {@link #local}. */
    private void install(TraceState st) {
        states.add(st);
        int slot = (int) st.tid & (SLOTS - 1);
        synchronized (byThread) {
            TraceState old = byThread[slot];
            if (old == null || !old.alive()) {
                byThread[slot] = st;
                return;
            }
        }
        local.set(new WeakReference<>(st));
    }

    private void uninstall(TraceState st) {
        synchronized (byThread) {
            int slot = (int) st.tid & (SLOTS - 1);
            if (byThread[slot] == st) {
                byThread[slot] = null;
            }
        }
        local.remove();
        states.remove(st);
    }

    @Override
    public long enter(int id) {
        TraceState st = current();
        if (st == null) {
            st = new TraceState(Thread.currentThread());
            install(st);
        }
        if (st.depth++ > 0) {
            return 0L;  // a recursive call of the root inside the root; exit ignores start
        }
        st.open(id);
        if (has(id, START_SHARED)) {
            st.startPending = true;
            return 0L;
        }
        long now = System.nanoTime();
        st.root.start = now;
        return now;
    }

    @Override
    public void exit(int id, long start, Throwable thrown) {
        TraceState st = current();
        if (st == null || st.depth == 0) {
            return;  // not ours: the root was entered before the command started
        }
        if (st.depth > 1) {  // a recursive call of the root inside the root
            if (st.pending != 0) {
                st.settle(System.nanoTime());
            }
            st.depth--;
            return;
        }
        long now = System.nanoTime();
        st.depth = 0;
        TraceNode root = st.close(now);
        root.finish(now, thrown != null);
        if (++st.events >= ROOT_FLUSH) {
            run.events.add(st.events);
            st.events = 0;
        }
        if (!run.admits()) {
            return;  // the client is behind or -n is reached: nothing more to do for this call
        }
        if (condition != null) {
            Env env = st.env;
            env.costMs = root.totalNanos / 1e6;
            env.throwExp = thrown;
            env.clazz = null;  // the condition sees #cost and throwExp (lean advice: no arguments)
            env.method = null;
            try {
                if (!condition.test(env)) {
                    return;
                }
            } catch (EvalException e) {
                return;
            } finally {
                env.throwExp = null;
            }
        }
        if (run.claim()) {
            // Raw timings only: the command thread renders (see render) and hands the tree back.
            root.thread = Thread.currentThread();
            root.wallMillis = System.currentTimeMillis();
            root.inFlight = true;
            run.emit(root);
        }
    }

    /** On the command thread: prints one captured tree, then releases it for reuse. */
    void render(Object record) {
        TraceNode root = (TraceNode) record;
        try {
            TraceRenderer r = new TraceRenderer(this, pairCostNanos, sharedPairCostNanos);
            if (run.json()) {
                run.print(null, r.data(root, root.thread));
            } else {
                run.print(r.text(root, root.thread, root.wallMillis), null);
            }
        } finally {
            root.thread = null;
            root.inFlight = false;
        }
    }

    @Override
    public void beforeCall(int site) {
        TraceState st = current();
        if (st == null || st.depth == 0) {
            return;
        }
        // One read: the start of this call and the end of whatever was left pending.
        long now = System.nanoTime();
        if (st.pending != 0 || st.startPending) {
            st.settle(now);
        }
        st.push(site).start = now;
        if (++st.events == FLUSH) {  // a root that runs for long still shows on the breaker
            run.events.add(FLUSH);
            st.events = 0;
        }
    }

    @Override
    public void afterCall(int site) {
        TraceState st = current();
        if (st == null || st.depth == 0) {
            return;
        }
        if (has(site, END_SHARED)) {
            if (st.pending != 0) {  // not expected: the weaver saw nothing costly in between
                st.settle(System.nanoTime());
            }
            st.pending = site;
            return;
        }
        long now = System.nanoTime();
        if (st.pending != 0 || st.startPending) {
            st.settle(now);
        }
        st.pop(site, now);
    }

    /**
     * Measures this listener's own cost per call-site pair on a private, throwaway tree, through
     * the real path: for {@code site}, a call that reads the clock at both ends, and for
     * {@code sharedSite} (flagged {@link #END_SHARED}), a run of adjacent calls that share reads.
     */
    void calibrate(int site, int sharedSite) {
        flag(sharedSite, END_SHARED);
        TraceState st = new TraceState(Thread.currentThread());
        install(st);
        try {
            pairCostNanos = calibrate(st, site);
            sharedPairCostNanos = calibrate(st, sharedSite);
        } finally {
            st.depth = 0;
            st.root = null;
            uninstall(st);
        }
    }

    private static double calibrate(TraceState st, int site) {
        double best = Double.MAX_VALUE;
        for (int round = 0; round < 15; round++) {
            st.depth = 1;
            st.open(0);
            int n = 20_000;
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                Bridge.beforeCall(site);
                Bridge.afterCall(site);
            }
            long t1 = System.nanoTime();
            st.close(t1);
            best = Math.min(best, (t1 - t0) / (double) n);
        }
        return best;
    }
}
