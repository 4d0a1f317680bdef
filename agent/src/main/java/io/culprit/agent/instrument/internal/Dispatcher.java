package io.culprit.agent.instrument.internal;

import io.culprit.agent.instrument.Listener;
import io.culprit.bootstrap.Spy;
import java.lang.invoke.CallSite;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link Spy} the Bridge delegates to: an id-indexed, copy-on-write array of listeners, so
 * the hot path is one volatile read and one array load. An id whose command ended maps to null
 * and its events vanish, which is what makes leftover bytecode harmless between reset and the
 * end of retransformation.
 */
public final class Dispatcher implements Spy {

    public static final Dispatcher INSTANCE = new Dispatcher();

    private volatile Listener[] listeners = new Listener[256];
    private int nextId = 1;
    /** The linked call sites of each id ({@link #link}): re-pointed whenever the id's listener changes. */
    private final Map<Integer, List<MutableCallSite>> sites = new HashMap<>();

    private Dispatcher() { }

    /** Reserves a fresh id for {@code listener}; ids are never reused while the agent lives. */
    public synchronized int register(Listener listener) {
        int id = reserve(1);
        set(id, listener);
        return id;
    }

    /** Reserves {@code count} contiguous ids (so listeners can index arrays); returns the first. */
    public synchronized int reserve(int count) {
        int first = nextId;
        nextId += count;
        Listener[] current = listeners;
        if (nextId > current.length) {
            listeners = Arrays.copyOf(current, Math.max(current.length * 2, nextId + 64));
        }
        return first;
    }

    /**
     * Slot writes are published by the volatile write of the array that follows; a reader that
     * races sees the old value for a moment, which costs one dropped or late event, never an
     * error. No copy per write: a deep trace registers tens of thousands of call sites.
     */
    public synchronized void set(int id, Listener listener) {
        Listener[] current = listeners;
        current[id] = listener;
        listeners = current;
        repoint(sites.get(id), listener);
    }

    public synchronized void unregisterAll(Iterable<Integer> ids) {
        Listener[] current = listeners;
        for (int id : ids) {
            current[id] = null;
            repoint(sites.remove(id), null);  // ids are never reused: the sites are done
        }
        listeners = current;
    }

    /**
     * A probe's {@code invokedynamic} (see {@link ProbeAdvice}): a call site whose target is the
     * id's listener itself, so the JIT inlines the listener into the woven method. Changing the
     * listener re-points the site, which deoptimizes the code that inlined it.
     */
    @Override
    public synchronized CallSite link(String name, MethodType type, int id) {
        Listener listener = at(id);
        if (listener == null || !ProbeTargets.links(name, type)) {
            return null;  // the Bridge's no-op for good: an id whose command ended is never reused
        }
        MutableCallSite site = new MutableCallSite(type);
        site.setTarget(ProbeTargets.of(type, listener));
        sites.computeIfAbsent(id, k -> new ArrayList<>()).add(site);
        return site;
    }

    private static void repoint(List<MutableCallSite> linked, Listener listener) {
        if (linked == null || linked.isEmpty()) {
            return;
        }
        for (MutableCallSite site : linked) {
            site.setTarget(ProbeTargets.of(site.type(), listener));
        }
        // Other threads see the new targets now, not at their next synchronization.
        MutableCallSite.syncAll(linked.toArray(new MutableCallSite[0]));
    }

    private Listener at(int id) {
        Listener[] current = listeners;
        return id > 0 && id < current.length ? current[id] : null;
    }

    @Override
    public long enter(int id) {
        Listener l = at(id);
        return l == null ? 0L : l.enter(id);
    }

    @Override
    public void exit(int id, long start, Throwable thrown) {
        Listener l = at(id);
        if (l != null) {
            l.exit(id, start, thrown);
        }
    }

    @Override
    public long enterArgs(int id, Object self, Object[] args) {
        Listener l = at(id);
        return l == null ? 0L : l.enterArgs(id, self, args);
    }

    @Override
    public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
        Listener l = at(id);
        if (l != null) {
            l.exitArgs(id, start, self, args, returned, thrown);
        }
    }

    @Override
    public long probeEnter(int id, Object self, Object arg0) {
        Listener l = at(id);
        return l == null ? 0L : l.probeEnter(id, self, arg0);
    }

    @Override
    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
        Listener l = at(id);
        if (l != null) {
            l.probeExit(id, start, self, arg0, arg1, returned, thrown);
        }
    }

    @Override
    public void beforeCall(int site) {
        Listener l = at(site);
        if (l != null) {
            l.beforeCall(site);
        }
    }

    @Override
    public void afterCall(int site) {
        Listener l = at(site);
        if (l != null) {
            l.afterCall(site);
        }
    }
}
