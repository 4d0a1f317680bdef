package io.culprit.agent.instrument;

import io.culprit.agent.instrument.expr.EvalException;
import io.culprit.agent.instrument.expr.Env;
import io.culprit.agent.instrument.expr.Expression;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.bootstrap.Bridge;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    /**
     * One thread's trace. Trees are kept per root and reset for reuse (rendering is synchronous,
     * on this thread), so a traced invocation allocates nothing once its call sites were seen.
     */
    private static final class State {
        int depth;
        final List<TraceNode> stack = new ArrayList<>();
        final List<TraceNode> trees = new ArrayList<>(2);
        final Env env = new Env();
        TraceNode root;

        TraceNode tree(int id) {
            for (int i = 0; i < trees.size(); i++) {
                TraceNode t = trees.get(i);
                if (t.site == id) {
                    t.reset();
                    return t;
                }
            }
            TraceNode t = new TraceNode(id);
            trees.add(t);
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
     * Each thread's trace state, created on its first root invocation. Not a ThreadLocal: reset
     * can strike mid-invocation (always, under load), and a value of an agent class stranded in
     * an application thread's ThreadLocalMap pins the detached agent's whole class loader. This
     * map goes away with the listener.
     */
    private final ConcurrentHashMap<Thread, State> state = new ConcurrentHashMap<>();
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

    @Override
    public long enter(int id) {
        Thread thread = Thread.currentThread();
        State st = state.get(thread);
        if (st == null) {
            st = new State();
            state.put(thread, st);
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
        State st = state.get(thread);
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
        run.events.increment();
        double costMs = root.totalNanos / 1e6;
        if (condition != null) {
            Env env = st.env;
            env.costMs = costMs;
            env.throwExp = thrown;
            env.clazz = null;  // the condition sees #cost and throwExp (lean advice: no arguments)
            env.method = null;
            try {
                if (!condition.test(env)) {
                    return;
                }
            } catch (EvalException e) {
                return;
            }
        }
        if (run.claim()) {
            TraceRenderer r = new TraceRenderer(this, pairCostNanos);
            run.emit(r.text(root, Thread.currentThread()), r.data(root, Thread.currentThread()));
        }
    }

    @Override
    public void beforeCall(int site) {
        State st = state.get(Thread.currentThread());
        if (st == null || st.depth == 0) {
            return;
        }
        TraceNode child = st.stack.get(st.stack.size() - 1).child(site);
        st.stack.add(child);
        run.events.increment();
        child.start = System.nanoTime();
    }

    @Override
    public void afterCall(int site) {
        long now = System.nanoTime();
        State st = state.get(Thread.currentThread());
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
        state.put(Thread.currentThread(), st);
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
        state.remove(Thread.currentThread());
        pairCostNanos = best;
    }
}
