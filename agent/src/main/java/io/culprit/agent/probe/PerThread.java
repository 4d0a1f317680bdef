package io.culprit.agent.probe;

import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * One probe's per-thread state, found by thread id in a table of its own instead of a
 * ThreadLocal: a request thread of a servlet container carries dozens of thread-locals, and the
 * probes' lookups (a dozen per request) kept landing on collision chains
 * ({@code ThreadLocalMap.getEntryAfterMiss} was the probes' largest single cost). Here a lookup
 * is an index and a compare. A thread whose slot is held by another live thread (ids equal modulo
 * the table size) keeps its state in a ThreadLocal instead, as before.
 *
 * <p>The table belongs to the probe, not to application threads, so nothing of the agent stays
 * reachable from them after detach. A dead thread's state stays in its slot until a thread with
 * a colliding id takes it over: at most {@link #SIZE} small arrays per probe.
 */
final class PerThread {

    static final int SIZE = 1024;
    /** Slot → {long[] {thread id}, WeakReference to the thread, state}. */
    private final AtomicReferenceArray<Object[]> slots = new AtomicReferenceArray<>(SIZE);
    /** For threads whose slot a live thread holds; JDK types only, like every probe thread-local. */
    private final ThreadLocal<Object> overflow = new ThreadLocal<>();
    private final Supplier<Object> make;

    /** @param make a fresh state for a thread (JDK types only) */
    PerThread(Supplier<Object> make) {
        this.make = make;
    }

    /** This thread's state, made on its first call. */
    Object get() {
        Thread t = Thread.currentThread();
        long id = t.getId();
        Object[] e = slots.get((int) id & (SIZE - 1));
        if (e != null && ((long[]) e[0])[0] == id) return e[2];
        return claim(t, id);
    }

    private Object claim(Thread t, long id) {
        Object own = overflow.get();
        if (own != null) return own;  // once overflowed, always: taking a slot later would lose the state
        int i = (int) id & (SIZE - 1);
        Object s = make.get();  // once: a state may register itself with its probe
        while (true) {
            Object[] e = slots.get(i);
            Object holder = e == null ? null : ((WeakReference<?>) e[1]).get();
            if (holder != null && ((Thread) holder).isAlive()) {
                overflow.set(s);
                return s;
            }
            if (slots.compareAndSet(i, e, new Object[] {new long[] {id}, new WeakReference<>(t), s})) return s;
        }
    }
}
