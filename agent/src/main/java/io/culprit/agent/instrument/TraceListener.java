package io.culprit.agent.instrument;

import io.culprit.agent.instrument.expr.EvalException;
import io.culprit.agent.instrument.expr.Env;
import io.culprit.agent.instrument.expr.Expression;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.bootstrap.Bridge;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Builds the call tree of each root invocation on the thread that runs it. The root method's
 * entry/exit advice opens and closes a per-thread tree; woven call sites push and pop nodes.
 * Outside a root invocation a call-site event costs one map lookup. A callee that throws
 * skips its {@code afterCall}: the next {@code afterCall} (or the root's exit) closes the
 * nodes left open, marking them as thrown.
 */
final class TraceListener extends Listener implements Plan.SiteRegistrar {

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

    /** Trees kept per thread for reuse; beyond this many in flight, a tree is used once. */
    private static final int MAX_TREES = 16;
    private static final int FLUSH = 1024;

    /**
     * One thread's trace. Trees are kept per root and reset for reuse once the command thread
     * rendered them, so a traced invocation allocates nothing once its call sites were seen.
     */
    private static final class State {
        int depth;
        /** Events not yet added to the run's counter: one shared add per root, not per call site. */
        long events;
        final List<TraceNode> stack = new ArrayList<>();
        final List<TraceNode> trees = new ArrayList<>(2);
        final Env env = new Env();
        TraceNode root;

        /**
         * A zeroed tree for root {@code id}: a reused one unless all of this root's trees are
         * still waiting to be rendered by the command thread (then a new one, kept for reuse).
         */
        TraceNode tree(int id) {
            for (int i = 0; i < trees.size(); i++) {
                TraceNode t = trees.get(i);
                if (t.site == id && !t.inFlight) {
                    t.reset();
                    return t;
                }
            }
            TraceNode t = new TraceNode(id);
            if (trees.size() < MAX_TREES) {
                trees.add(t);
            }
            return t;
        }
    }

    private final CommandRun run;
    private final Expression condition;
    private final boolean skipJdk;
    private final Map<String, Integer> siteIds = new ConcurrentHashMap<>();
    final Map<Integer, Site> sites = new ConcurrentHashMap<>();
    final Map<Integer, MethodTarget> roots = new ConcurrentHashMap<>();
    final List<Integer> ids = new ArrayList<>();
    /**
     * Each thread's trace state, created on its first root invocation. The thread's own map holds
     * only JDK objects (the ThreadLocal and a WeakReference): reset can strike mid-invocation
     * (always, under load), and a value of an agent class stranded in an application thread's
     * ThreadLocalMap would pin the detached agent's whole class loader. {@link #states} keeps
     * the states alive while this listener lives. (A map keyed by Thread costs an identity hash
     * per event, a slow runtime call once the Thread's monitor is inflated.)
     */
    private final ThreadLocal<WeakReference<State>> local = new ThreadLocal<>();
    private final Set<State> states = ConcurrentHashMap.newKeySet();
    /** The tool's own cost per call-site pair, measured before install; subtracted when rendering. */
    volatile double pairCostNanos;

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

    private State current() {
        WeakReference<State> ref = local.get();
        return ref == null ? null : ref.get();
    }

    @Override
    public long enter(int id) {
        State st = current();
        if (st == null) {
            st = new State();
            states.add(st);
            local.set(new WeakReference<>(st));
        }
        long now = System.nanoTime();
        if (st.depth++ == 0) {
            st.root = st.tree(id);
            st.root.start = now;
            st.stack.clear();
            st.stack.add(st.root);
        }
        return now;
    }

    @Override
    public void exit(int id, long start, Throwable thrown) {
        long now = System.nanoTime();
        Thread thread = Thread.currentThread();
        State st = current();
        if (st == null || st.depth == 0 || --st.depth > 0) {
            return;  // not ours, or a recursive call of the root inside the root
        }
        for (int i = st.stack.size() - 1; i > 0; i--) {
            st.stack.get(i).finish(now, true);
        }
        st.stack.clear();
        TraceNode root = st.root;
        st.root = null;
        root.finish(now, thrown != null);
        run.events.add(st.events + 1);
        st.events = 0;
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
            root.thread = thread;
            root.wallMillis = System.currentTimeMillis();
            root.inFlight = true;
            run.emit(root);
        }
    }

    /** On the command thread: prints one captured tree, then releases it for reuse. */
    void render(Object record) {
        TraceNode root = (TraceNode) record;
        try {
            TraceRenderer r = new TraceRenderer(this, pairCostNanos);
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
        State st = current();
        if (st == null || st.depth == 0) {
            return;
        }
        TraceNode child = st.stack.get(st.stack.size() - 1).child(site);
        st.stack.add(child);
        if (++st.events == FLUSH) {  // a root that runs for long still shows on the breaker
            run.events.add(FLUSH);
            st.events = 0;
        }
        child.start = System.nanoTime();
    }

    @Override
    public void afterCall(int site) {
        long now = System.nanoTime();
        State st = current();
        if (st == null || st.depth == 0) {
            return;
        }
        for (int i = st.stack.size() - 1; i > 0; i--) {
            TraceNode n = st.stack.remove(i);
            n.finish(now, n.site != site);
            if (n.site == site) {
                return;
            }
        }
    }

    /** Measures this listener's own cost per call-site pair on a private, throwaway tree. */
    void calibrate(int site) {
        State st = new State();
        local.set(new WeakReference<>(st));
        double best = Double.MAX_VALUE;
        for (int round = 0; round < 15; round++) {
            st.depth = 1;
            st.root = new TraceNode(0);
            st.stack.clear();
            st.stack.add(st.root);
            int n = 20_000;
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                Bridge.beforeCall(site);
                Bridge.afterCall(site);
            }
            best = Math.min(best, (System.nanoTime() - t0) / (double) n);
        }
        st.depth = 0;
        st.root = null;
        st.stack.clear();
        local.remove();
        pairCostNanos = best;
    }
}
