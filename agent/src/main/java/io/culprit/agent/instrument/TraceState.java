package io.culprit.agent.instrument;

import io.culprit.agent.instrument.expr.Env;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One thread's trace. Trees are kept per root and reset for reuse once the command thread
 * rendered them, so a traced invocation allocates nothing once its call sites were seen.
 */
final class TraceState {
    /** Trees kept per thread for reuse; beyond this many in flight, a tree is used once. */
    private static final int MAX_TREES = 16;

    final long tid;
    private final WeakReference<Thread> thread;
    int depth;
    /** Events not yet added to the run's counter: one shared add per many roots, not per event. */
    int events;
    /** The open nodes: the root at 0, the innermost call at {@code top}. */
    TraceNode[] stack = new TraceNode[8];
    int top;
    /** A call whose end waits for the next clock read (0: none). */
    int pending;
    /** The root's start waits for the next clock read. */
    boolean startPending;
    final List<TraceNode> trees = new ArrayList<>(2);
    final Env env = new Env();
    TraceNode root;

    TraceState(Thread thread) {
        this.tid = thread.getId();
        this.thread = new WeakReference<>(thread);
    }

    boolean alive() {
        Thread t = thread.get();
        return t != null && t.isAlive();
    }

    /** Starts root {@code id}'s tree: a reused one unless all of its trees await rendering. */
    void open(int id) {
        TraceNode t = tree(id);
        root = t;
        stack[0] = t;
        top = 0;
        pending = 0;
        startPending = false;
    }

    private TraceNode tree(int id) {
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

    /** The node of call {@code site} under the innermost open node, now open itself. */
    TraceNode push(int site) {
        TraceNode child = stack[top].child(site);
        if (++top == stack.length) {
            stack = Arrays.copyOf(stack, top * 2);
        }
        stack[top] = child;
        return child;
    }

    /** Closes call {@code site} and any callee above it that threw past its afterCall. */
    void pop(int site, long now) {
        while (top > 0) {
            TraceNode n = stack[top--];
            n.finish(now, n.site != site);
            if (n.site == site) {
                return;
            }
        }
    }

    /** Gives {@code now} to what was left pending: the root's start, a call's end. */
    void settle(long now) {
        if (startPending) {
            startPending = false;
            root.start = now;
        }
        int p = pending;
        if (p != 0) {
            pending = 0;
            pop(p, now);
        }
    }

    /** Ends the root invocation at {@code now}, closing what threw past its afterCall. */
    TraceNode close(long now) {
        settle(now);
        while (top > 0) {
            stack[top--].finish(now, true);
        }
        TraceNode r = root;
        root = null;
        return r;
    }
}
