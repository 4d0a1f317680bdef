package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.model.Table;
import java.util.List;
import java.util.Optional;

/**
 * A heap filled by softly referenced values: JFR's "Soft reference" count per collection
 * ({@code gc-references}) in the thousands, with the heap nearly full after each collection.
 * The collector clears soft references only when memory runs short, so a cache whose values are
 * soft (Caffeine's or Guava's {@code softValues()}, a map of {@code SoftReference}s) grows until
 * the heap is full: collections then run back to back, clear a batch of values, and the requests
 * compute them again. A claims service outside the lab kept rendered policy wordings so, on a
 * 256 MB heap: gc-pressure read "raise -Xmx", where the cache was the cause (3.2x with a bounded one).
 */
final class SoftValues {
    /** The JDK and the libraries keep a few hundred soft references at most (the lab's cases: ≤ 326 per collection). */
    static final double MIN_PER_GC = 1000;
    /** Heap free after GC below this: the soft values hold the heap. */
    static final double MAX_FREE = 0.2;

    private SoftValues() {}

    /** The trigger when soft references hold a nearly full heap; empty otherwise or without the table. */
    static Optional<GcTrigger> read(Evidence ev, double free, Numbers n) {
        Optional<Table> refs = ev.rows("gc-references");
        if (refs.isEmpty() || !(free < MAX_FREE)) return Optional.empty();
        Table t = refs.get();
        int row = -1;
        for (int i = 0; i < t.rows().size(); i++) if (String.valueOf(t.text(i, "type")).startsWith("Soft")) row = i;
        if (row < 0 || !(t.number(row, "maxPerGc") >= MIN_PER_GC)) return Optional.empty();
        String ref = "tables/gc-references#" + row;
        String maker = valueMaker(ev);
        String summary = "collections found up to " + n.tag(Fmt.num(t.number(row, "maxPerGc")), ref) + " soft references each (JFR's"
                + " soft references, " + n.tag(Fmt.num(t.number(row, "count")), ref) + " in all) with the heap "
                + Fmt.pct(1 - free) + " full after GC: softly held values fill it"
                + (maker == null ? "" : ", most of the allocation made by " + maker);
        return Optional.of(new GcTrigger(summary, maker == null ? "a cache with soft values" : maker,
                "Bound the cache by size or weight with strong values (Caffeine/Guava: maximumSize or maximumWeight, and"
                        + " expireAfterWrite if it must follow changes) instead of softValues(), so it evicts by its own policy;"
                        + " size it for the hot set. A bigger heap only delays the same collapse.",
                "The collector clears a soft reference only when memory runs short, so a cache whose values are soft"
                        + " (softValues(), a map of SoftReference) grows until the heap is full. From then on every collection"
                        + " runs against a full heap, back to back and often full, clears a batch of values, and the requests"
                        + " compute them again: the GC becomes the cache's eviction policy, at the price of the pauses."));
    }

    /** The application frame of the largest allocation site: where the cached values are made; null when unknown. */
    private static String valueMaker(Evidence ev) {
        Optional<Table> sites = ev.rows("alloc-sites");
        if (sites.isEmpty()) return null;
        Table t = sites.get();
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) if (top < 0 || t.number(i, "share") > t.number(top, "share")) top = i;
        if (top < 0) return null;
        List<String> stack = Evidence.stack(t, top, "stack");
        String app = Frames.firstApplication(stack);
        return app == null ? null : Frames.stripLine(app);
    }
}
