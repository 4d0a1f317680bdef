package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * What a lock's holder does inside the critical section, read from the CPU profile below the frame
 * the lock is held at: the call that takes most of it, and its kind when that kind has a cure of its
 * own. A service outside the lab that forced an audit log to disk per request inside a synchronized
 * method read lock-contention's generic "take the lock off the per-request path" while 89 % of its
 * holder's samples were in FileChannel.force: the lock only queued the requests for the disk.
 */
final class HeldWork {
    /** The call must take at least this share of the holder's samples to be named. */
    static final double MIN_SHARE = 0.5;
    /** Fewer samples under the held frame say nothing. */
    static final long MIN_SAMPLES = 20;

    /**
     * Kinds whose own cure replaces "make the call before taking the lock": a disk flush wants group
     * commit, and a copy-on-write list or a secure generator takes its own lock inside the call, so
     * there is no call to move out.
     */
    private static final Set<HotCallee.Kind> OWN_CURE = EnumSet.of(HotCallee.Kind.FSYNC, HotCallee.Kind.COPY_ON_WRITE,
            HotCallee.Kind.RANDOM);
    /** Writes that shrink a copy-on-write collection, each as costly as an add. */
    private static final String[] COW_REMOVES = {
        "java.util.concurrent.CopyOnWriteArrayList.remove", "java.util.concurrent.CopyOnWriteArraySet.remove",
        "java.util.concurrent.CopyOnWriteArrayList.clear", "java.util.concurrent.CopyOnWriteArraySet.clear"
    };

    /**
     * The named call below the held frame, its share of the holder's samples, its kind (null when
     * none), and whether a copy-on-write collection written there only grows: no sample removes from
     * one (a remove copies as much as an add, so removes as frequent would show as often).
     */
    record Work(String callee, double share, long samples, HotCallee.Kind kind, boolean onlyGrows) { }

    private HeldWork() { }

    /**
     * The work under {@code heldAt} ("pkg.Class.method:line"), from samples that run below it but
     * are not themselves acquiring a lock (waiters spinning on the same monitor sit under the same
     * frame); null when the profile is missing, thin, or no one call takes {@link #MIN_SHARE}.
     */
    static Work of(Evidence ev, String heldAt) {
        if (heldAt == null) return null;
        CpuProfile p = ev.cpuProfileIfAny().orElse(null);
        if (p == null) return null;
        String method = Frames.stripLine(heldAt);
        CpuProfile holder = p.only(st -> {
            int at = deepest(st, method);
            if (at < 0) return false;
            for (int i = at + 1; i < st.length; i++) if (acquiring(st[i])) return false;
            return true;
        });
        if (holder.samples() < MIN_SAMPLES) return null;
        Map.Entry<String, Long> callee = CpuHotspotRule.top(holder.sumBy(st -> HotCallee.calleeBelow(st, deepest(st, method))));
        if (callee == null || callee.getValue() < MIN_SHARE * holder.samples()) return null;
        Map.Entry<String, Long> kind = CpuHotspotRule.top(holder.sumBy(st -> {
            HotCallee.Kind k = HotCallee.kindBelow(st, deepest(st, method));
            return k == null ? null : k.name();
        }));
        HotCallee.Kind k = kind != null && kind.getValue() >= MIN_SHARE * holder.samples() ? HotCallee.Kind.valueOf(kind.getKey()) : null;
        boolean onlyGrows = k == HotCallee.Kind.COPY_ON_WRITE && p.only(st -> Frames.anyStartsWith(st, COW_REMOVES)).samples() == 0;
        return new Work(callee.getKey(), (double) callee.getValue() / holder.samples(), holder.samples(), k, onlyGrows);
    }

    /** "; inside it the holder spends 89 % of its CPU samples in X (forcing writes to disk (fsync))". */
    static String clause(Work w, Numbers n) {
        return "; inside it the holder spends " + n.tag(Fmt.pct(w.share()), "profiles/cpu.collapsed") + " of its "
                + Fmt.num(w.samples()) + " CPU samples in " + w.callee() + (w.kind() == null ? "" : ", " + w.kind().what)
                + (w.onlyGrows() ? ", and no sample removes from it: entries are added and never removed, so it grows with every"
                + " request and each add copies more" : "");
    }

    /** The fix when the holder's time is one call: take it out of the critical section. */
    static String fix(Work w) {
        String out = "The lock's holder spends most of the critical section in " + Frames.shortName(w.callee())
                + ", so every request queues for that call one at a time. ";
        if (w.onlyGrows()) {
            return out + "Nothing removes what the requests add, so the collection grows through the run: remove each entry"
                    + " when its request is done (in a finally), or unregister a listener when its owner ends. " + w.kind().fix;
        }
        return OWN_CURE.contains(w.kind()) ? out + w.kind().fix
                : out + "Make the call before taking the lock (or once, and keep its result), and hold the lock only"
                + " to update the shared state." + (w.kind() == null ? "" : " " + w.kind().fix);
    }

    /** Index of the deepest frame of {@code method} in a root-first stack, or -1. */
    private static int deepest(String[] st, String method) {
        for (int i = st.length - 1; i >= 0; i--) if (Frames.stripLine(st[i]).equals(method)) return i;
        return -1;
    }

    /** A frame of taking a lock: HotSpot's monitor entry (waiters spin there on CPU), parking, Object.wait. */
    private static boolean acquiring(String f) {
        return f.contains("monitorenter") || f.contains("monitor_enter") || f.contains("complete_monitor_locking")
                || f.startsWith("ObjectSynchronizer::") || f.startsWith("ObjectMonitor::")
                || Frames.startsWithAny(f, "java.util.concurrent.locks.", "jdk.internal.misc.Unsafe.park", "java.lang.Object.wait");
    }
}
