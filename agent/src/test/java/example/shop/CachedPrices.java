package example.shop;

import java.util.function.Supplier;
import org.springframework.cache.annotation.Cacheable;

/** A Spring bean with a cached method, called through its proxy and on {@code this} (ProxyBypass's test). */
public class CachedPrices {
    /** Runs {@code work} on a cache miss, as a cached repository query would. */
    @Cacheable("summaries")
    public Object summary(String region, Supplier<Object> work) {
        return work.get();
    }

    /** Calls the cached method on {@code this}: Spring's proxy never sees the call, so nothing is cached. */
    public Object page(String region, Supplier<Object> work) {
        return summary(region, work);
    }
}
