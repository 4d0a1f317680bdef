package io.culprit.jfr.collect;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Ids seen lately, to count an event once when the recording holds it twice. A JDK 17 service
 * outside the lab, collecting 100 times a second on a 160 MB heap (humongous allocations and full
 * collections), recorded every {@code jdk.GarbageCollection} twice with the same {@code gcId} and
 * the same values: the pauses summed to 117 % of wall time. Bounded: duplicates sit close together.
 */
final class RecentIds {
    private final Map<Long, Boolean> ids;

    RecentIds(int capacity) {
        this.ids = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    /** True when {@code id} was seen among the last ids; remembers it either way. */
    boolean seen(long id) {
        return ids.put(id, Boolean.TRUE) != null;
    }
}
