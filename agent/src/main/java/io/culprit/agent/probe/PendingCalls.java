package io.culprit.agent.probe;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Start times of calls that begin on one thread and end on another, keyed by the identity of an
 * object both ends see (WebClient's {@code ClientRequest}): a fixed open-addressed table, so
 * neither end allocates or takes a lock. A call whose end never comes (cancelled, or failed past
 * the hook that ends it) keeps its slot until it is {@link #STALE_NS} old; when every slot a key
 * may use holds a live call, the new call is not timed.
 */
final class PendingCalls {

    static final long NONE = Long.MIN_VALUE;
    private static final int SIZE = 1024;
    /** Slots tried per key: a full neighbourhood is a burst of calls in flight, not a reason to search the table. */
    private static final int PROBES = 16;
    static final long STALE_NS = TimeUnit.MINUTES.toNanos(10);
    /** A slot being filled: its start is not written yet. */
    private static final Object CLAIMED = new Object();

    private final AtomicReferenceArray<Object> keys = new AtomicReferenceArray<>(SIZE);
    /** Written before the slot's key is published, read after it is seen. */
    private final AtomicLongArray starts = new AtomicLongArray(SIZE);

    /** Notes that the call of {@code key} started at {@code startNs}; false when no slot was free. */
    boolean put(Object key, long startNs) {
        if (key == null) return false;
        int home = home(key);
        for (int i = 0; i < PROBES; i++) {
            int slot = (home + i) & (SIZE - 1);
            Object k = keys.get(slot);
            boolean free = k == null ? keys.compareAndSet(slot, null, CLAIMED)
                    : k != CLAIMED && startNs - starts.get(slot) > STALE_NS && keys.compareAndSet(slot, k, CLAIMED);
            if (free) {
                starts.set(slot, startNs);
                keys.set(slot, key);
                return true;
            }
        }
        return false;
    }

    /** The start of the call of {@code key}, forgetting it; {@link #NONE} when it was not noted (or already taken). */
    long take(Object key) {
        if (key == null) return NONE;
        int home = home(key);
        for (int i = 0; i < PROBES; i++) {
            int slot = (home + i) & (SIZE - 1);
            if (keys.get(slot) != key) continue;
            long start = starts.get(slot);
            // Fails only if the slot was reclaimed as stale meanwhile: then the start read may be another call's.
            if (keys.compareAndSet(slot, key, null)) return start;
        }
        return NONE;
    }

    private static int home(Object key) {
        int h = System.identityHashCode(key);
        return h ^ (h >>> 16);
    }
}
