package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import acme.QuoteCache;
import io.culprit.agent.instrument.Instrumenter;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.cache.interceptor.SimpleKeyGenerator;

/** Keys Spring's real SimpleKeyGenerator makes for @Cacheable methods: an argument without equals is named as such. */
class CacheKeysTest {

    /** A query as a controller builds it per request, without equals or hashCode. */
    public static final class Window {
        final int days;

        Window(int days) {
            this.days = days;
        }
    }

    public static final class Reports {
        public String summarize(Window w) {
            return "w" + w.days;
        }

        public String venue(String venue, Integer days) {
            return venue + days;
        }
    }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void anArgumentThatComparesByIdentityIsNamedWithItsCachedMethod() throws Exception {
        SimpleKeyGenerator keys = new SimpleKeyGenerator();
        Reports reports = new Reports();
        Method summarize = Reports.class.getMethod("summarize", Window.class);
        Method venue = Reports.class.getMethod("venue", String.class, Integer.class);
        keys.generate(reports, summarize, new Window(1));  // loaded, as in a running service
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 20; i++) keys.generate(reports, summarize, new Window(i % 2));
        for (int i = 0; i < 10; i++) keys.generate(reports, venue, "v-3", 90);

        List<Map<String, Object>> rows = p.cacheKeys.rows(10);
        Map<String, Map<String, Object>> byKey = new HashMap<>();
        for (Map<String, Object> r : rows) byKey.put((String) r.get("key"), r);
        assertThat(byKey.get(Window.class.getName())).containsEntry("keyEquality", "identity").containsEntry("calls", 20L)
                .containsEntry("method", Reports.class.getName() + ".summarize").containsEntry("perRequest", 2.0);
        // SimpleKey wraps both arguments: each is looked at, and both compare by value.
        assertThat(byKey.get("java.lang.String")).containsEntry("keyEquality", "value").containsEntry("calls", 10L);
        assertThat(byKey.get("java.lang.Integer")).containsEntry("keyEquality", "value");
    }

    /**
     * Keys the application hands Caffeine and Guava itself: each new key object is counted as new,
     * the same instance asked again is not, and the row names the application frame that asked.
     */
    @Test
    void aLibraryCacheKeyedByIdentityIsNamedWithTheMethodThatAskedAndItsNewKeysCounted() throws Exception {
        QuoteCache cache = new QuoteCache();
        cache.quote(new QuoteCache.QuoteKey("warm-up"));  // loaded, as in a running service
        cache.guavaQuote(new QuoteCache.QuoteKey("warm-up"));
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 30; i++) cache.quote(new QuoteCache.QuoteKey("eu"));
        QuoteCache.QuoteKey same = new QuoteCache.QuoteKey("us");
        for (int i = 0; i < 30; i++) cache.guavaQuote(same);

        Map<String, Map<String, Object>> byCache = new HashMap<>();
        for (Map<String, Object> r : p.cacheKeys.rows(30)) byCache.put((String) r.get("cache"), r);
        assertThat(byCache.get("caffeine")).containsEntry("key", QuoteCache.QuoteKey.class.getName())
                .containsEntry("keyEquality", "identity").containsEntry("calls", 30L).containsEntry("newKeys", 30L)
                .containsEntry("perRequest", 1.0);
        assertThat((String) byCache.get("caffeine").get("method")).matches("acme\\.QuoteCache\\.quote:\\d+");
        // One instance asked 30 times: its entry is found every time, identity or not.
        assertThat(byCache.get("guava")).containsEntry("calls", 30L).containsEntry("newKeys", 1L);
        assertThat((String) byCache.get("guava").get("method")).matches("acme\\.QuoteCache\\.guavaQuote:\\d+");
    }
}
