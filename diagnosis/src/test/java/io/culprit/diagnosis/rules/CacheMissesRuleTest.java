package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Evidence;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys that compare by identity, handed to a cache library by the application itself (blind round 21's f3). */
class CacheMissesRuleTest {
    @TempDir Path dir;

    /** A Caffeine cache read at PricingService.price:41, keyed by a class without equals; its loader's SELECT runs under it. */
    private Evidence caffeineKeyedBy(long newKeys) {
        return CaseBuilder.in(dir, 10, 2)
                .table("cache-keys", row("method", "com.acme.pricing.PricingService.price:41", "key", "com.acme.pricing.PriceKey",
                        "keyEquality", "identity", "calls", 9_000, "perRequest", 1.0, "cache", "caffeine", "newKeys", newKeys))
                .table("calls", row("kind", "sql", "target", "SELECT p.amount FROM price p WHERE p.sku = ?", "count", 9_000,
                        "totalMs", 18_000.0, "shareOfRequestTime", 0.55, "perRequest", 1.0,
                        "caller", "com.acme.pricing.PriceRepository.find:20",
                        "callStack", "com.acme.pricing.PriceRepository.find:20 ← com.acme.pricing.PricingService.lambda$price$0:41"
                                + " ← com.acme.pricing.PricingService.price:41 ← com.acme.web.QuoteController.quote:30"))
                .evidence();
    }

    @Test
    void aCaffeineCacheHandedANewKeyObjectPerCallMissesEveryCallAndNamesItsReader() {
        Finding f = new CacheMissesRule().evaluate(caffeineKeyedBy(9_000));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.acme.pricing.PricingService.price:41");
        assertThat(f.summary()).isEqualTo("the Caffeine cache that com.acme.pricing.PricingService.price:41 reads is keyed by a"
                + " com.acme.pricing.PriceKey (1 a request, 100 % of them new objects), which keeps Object's equals and hashCode: no"
                + " lookup finds the entry an earlier call stored, so every call misses and runs the loader; the dependency calls it"
                + " makes take 55 % of the requests' time.");
        assertThat(f.fix()).startsWith("Give PriceKey equals and hashCode").contains("Caffeine.recordStats()").doesNotContain("@Cacheable");
        assertThat(f.confirm()).contains("trace com.acme.pricing.PricingService price -n 5");
        assertThat(f.explains()).contains("slow-calls", "pool-size");
    }

    @Test
    void theSameKeyObjectsAskedAgainFindTheirEntriesWhateverTheirEquality() {
        Finding f = new CacheMissesRule().evaluate(caffeineKeyedBy(12));
        assertThat(f.summary()).doesNotContain("PriceKey");
        assertThat(f.isProblem()).isFalse();
    }
}
