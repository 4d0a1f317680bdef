package acme;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.common.cache.CacheBuilder;
import java.util.concurrent.ExecutionException;

/**
 * Application code outside culprit's packages that keys a Caffeine and a Guava cache itself, by a
 * class without equals or hashCode: the call site the agent names as the cache's reader.
 */
public final class QuoteCache {

    /** A lookup as a service builds it per request, keeping Object's equals and hashCode. */
    public static final class QuoteKey {
        final String region;

        public QuoteKey(String region) {
            this.region = region;
        }
    }

    private final Cache<QuoteKey, String> caffeine = Caffeine.newBuilder().maximumSize(1_000).build();
    private final com.google.common.cache.Cache<QuoteKey, String> guava = CacheBuilder.newBuilder().maximumSize(1_000).build();

    public String quote(QuoteKey key) {
        return caffeine.get(key, k -> "quote for " + k.region);
    }

    public String guavaQuote(QuoteKey key) throws ExecutionException {
        return guava.get(key, () -> "quote for " + key.region);
    }
}
