package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.model.Table;
import java.util.List;

/**
 * A contended lock that is a ConcurrentHashMap bin's: {@code compute}, {@code computeIfAbsent},
 * {@code computeIfPresent} and {@code merge} run the caller's function holding the monitor of the
 * key's bin, so a function that loads or calls out makes the map a lock for its key. A service
 * outside the lab that refreshed a half-second cache inside {@code compute} (a 40 ms HTTP call
 * under the bin's lock) read lock-contention's generic "take the lock off the per-request path".
 */
final class MapBinLock {
    private static final String MAP = "java.util.concurrent.ConcurrentHashMap";
    private static final String[] LOCKING = {MAP + ".compute", MAP + ".merge"};

    static final String EXPLANATION = "ConcurrentHashMap's compute, computeIfAbsent, computeIfPresent and merge run the"
            + " caller's function while holding the lock of the key's bin: every other call for that key, and for keys"
            + " that share its bin, blocks until the function returns. A function that loads, calls out or computes for"
            + " milliseconds turns the map into one lock per key, taken by every request that reads it.";
    static final String FIX = "Keep slow work out of the map's lock: read with get() and compute only on a miss or an"
            + " expiry; load outside the map and publish with put or replace (an occasional duplicate load is cheaper"
            + " than a queue); or keep a CompletableFuture per key, so that one caller loads while the others wait on the"
            + " future rather than on the bin. A cache library refreshes in the background while callers keep reading"
            + " the old value (Caffeine's refreshAfterWrite).";

    private MapBinLock() { }

    /** The map method the waiters block in ("ConcurrentHashMap.compute"), or null when the lock is no map bin's. */
    static String call(String lockClass, List<String> waiter) {
        if (lockClass == null || !lockClass.startsWith(MAP + "$")) return null;
        for (String f : waiter) {
            if (Frames.startsWithAny(f, LOCKING)) return Frames.shortName(f);
            if (!Frames.isJdk(f)) return null;
        }
        return null;
    }

    /**
     * The slowest dependency the culprit's class calls (calls table), with its time per call: what
     * the function likely holds the bin across. Said as a likelihood: a call's recorded caller is
     * the method that makes it, which for a function is a lambda's or a helper's, not the map's caller.
     */
    static String likelyHeld(Evidence ev, String culprit, Numbers n) {
        String method = Frames.stripLine(culprit == null ? "" : culprit);
        int dot = method.lastIndexOf('.');
        if (dot <= 0) return "";
        String owner = method.substring(0, dot + 1);
        int best = LockContentionRule.costliestCall(ev, caller -> caller.startsWith(owner));
        if (best < 0) return "";
        Table t = ev.rows("calls").orElseThrow();
        String ref = "tables/calls#" + best;
        double count = t.number(best, "count");
        String cls = owner.substring(0, owner.length() - 1);
        return "; " + cls.substring(cls.lastIndexOf('.') + 1) + " calls "
                + t.text(best, "kind") + " " + SlowCallsRule.quote(t.text(best, "target")) + " (" + n.tag(Fmt.num(count), ref)
                + " calls, " + n.tag(Fmt.ms(t.number(best, "totalMs") / count), ref) + " each): a function that makes it holds the bin that long";
    }
}
