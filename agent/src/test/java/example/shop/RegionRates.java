package example.shop;

import java.util.LinkedHashMap;
import java.util.Map;

/** A service's hand-made LRU cache, as LruMapsTest's target: outside culprit's packages, as an application's is. */
public final class RegionRates {
    private final int bound;
    private final Map<String, Long> cache;

    public RegionRates(int bound) {
        this.bound = bound;
        this.cache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > RegionRates.this.bound;
            }
        };
    }

    public synchronized long rate(String region) {
        Long r = cache.get(region);
        if (r == null) {
            r = (long) region.hashCode() * 31;
            cache.put(region, r);
        }
        return r;
    }
}
