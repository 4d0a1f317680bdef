package io.culprit.agent.probe;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Start times of calls that begin on one thread and end on another, keyed by the identity of an
 * object both ends see (WebClient's {@code ClientRequest}): a fixed open-addressed table, so
 * neither end allocates or takes a lock. A call whose end never comes (cancelled, or failed past
 * the hook that ends it) keeps its slot until it is {@link #STALE_NS} old; when every slot a key
 * may use holds a live call, the new call is not timed. A call may carry a value its end needs and
 * cannot find again (R2DBC's statement stats: its end sees only the conversation).
 */
final class PendingCalls {

    static final long NONE = Long.MIN_VALUE;
    private static final int SIZE = 1024;
    private final int mask;
    /** Slots tried per key: a full neighbourhood is a burst of calls in flight, not a reason to search the table. */
    private static final int PROBES = 16;
    static final long STALE_NS = TimeUnit.MINUTES.toNanos(10);
    /** A slot being filled: its start is not written yet. */
    private static final Object CLAIMED = new Object();

    private final AtomicReferenceArray<Object> keys;
    /** Written before the slot's key is published, read after it is seen. */
    private final AtomicLongArray starts;
    /** The value each call carries, published with its start. */
    private final AtomicReferenceArray<Object> values;

    PendingCalls() {
        this(SIZE);
    }

    /** @param size slots, a power of two: about the calls that may be in flight at once */
    PendingCalls(int size) {
        if (Integer.bitCount(size) != 1) throw new IllegalArgumentException("not a power of two: " + size);
        mask = size - 1;
        keys = new AtomicReferenceArray<>(size);
        starts = new AtomicLongArray(size);
        values = new AtomicReferenceArray<>(size);
    }

    /** Notes that the call of {@code key} started at {@code startNs}; false when no slot was free. */
    boolean put(Object key, long startNs) {
        return put(key, startNs, null);
    }

    /** As above, with a value {@link #value} reads until the call is taken. */
    boolean put(Object key, long startNs, Object value) {
        if (key == null) return false;
        int home = home(key);
        for (int i = 0; i < PROBES; i++) {
            int slot = (home + i) & mask;
            Object k = keys.get(slot);
            boolean free = k == null ? keys.compareAndSet(slot, null, CLAIMED)
                    : k != CLAIMED && startNs - starts.get(slot) > STALE_NS && keys.compareAndSet(slot, k, CLAIMED);
            if (free) {
                starts.set(slot, startNs);
                values.set(slot, value);
                keys.set(slot, key);
                return true;
            }
        }
        return false;
    }

    /** The start of the call of {@code key}, forgetting it; {@link #NONE} when it was not noted (or already taken). */
    long take(Object key) {
        int slot = slotOf(key);
        if (slot < 0) return NONE;
        long start = starts.get(slot);
        // Fails only if the slot was reclaimed as stale meanwhile: then the start read may be another call's.
        return keys.compareAndSet(slot, key, null) ? start : NONE;
    }

    /** The value the call of {@code key} carries, keeping the call; null when it was not noted. */
    Object value(Object key) {
        int slot = slotOf(key);
        return slot < 0 ? null : values.get(slot);
    }

    /** The slot that holds {@code key}'s call, or -1. */
    private int slotOf(Object key) {
        if (key == null) return -1;
        int home = home(key);
        for (int i = 0; i < PROBES; i++) {
            int slot = (home + i) & mask;
            if (keys.get(slot) == key) return slot;
        }
        return -1;
    }

    private static int home(Object key) {
        int h = System.identityHashCode(key);
        return h ^ (h >>> 16);
    }
}
