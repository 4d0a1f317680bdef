package io.culprit.jfr.collect;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Counts stacks of one group to name its most frequent one (the "top stack" of a table row). */
final class StackCounter {
    /** Bound per group: a group with thousands of distinct stacks is noise past this. */
    private static final int MAX_DISTINCT = 256;
    private final Map<List<String>, long[]> counts = new HashMap<>();

    void add(List<String> stack) {
        long[] c = counts.get(stack);
        if (c == null) {
            if (counts.size() >= MAX_DISTINCT) return;
            counts.put(stack, c = new long[1]);
        }
        c[0]++;
    }

    List<String> top() {
        List<String> best = List.of();
        long n = -1;
        for (Map.Entry<List<String>, long[]> e : counts.entrySet()) {
            if (e.getValue()[0] > n) {
                n = e.getValue()[0];
                best = e.getKey();
            }
        }
        return best;
    }
}
