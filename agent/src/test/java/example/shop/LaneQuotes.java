package example.shop;

import java.util.LinkedHashMap;
import java.util.Map;

/** A hand-made LRU cache whose key class keeps Object's equals and hashCode: LruMapsTest's target. */
public final class LaneQuotes {

    /** A lane as callers build it for each lookup, without equals or hashCode. */
    static final class Lane {
        final String from;
        final String to;

        Lane(String from, String to) {
            this.from = from;
            this.to = to;
        }
    }

    private final Map<Lane, Long> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Lane, Long> eldest) {
            return size() > 100;
        }
    };

    public synchronized long quote(String from, String to) {
        Lane lane = new Lane(from, to);
        Long q = cache.get(lane);
        if (q == null) {
            q = (long) (from.hashCode() ^ to.hashCode());
            cache.put(lane, q);
        }
        return q;
    }
}
