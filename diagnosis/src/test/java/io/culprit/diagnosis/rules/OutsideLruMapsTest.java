package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 36's service outside the lab: two hand-made LRU caches (LinkedHashMaps bounded in
 * removeEldestEntry) smaller than the 400 keys the requests use. One keeps BigDecimal tax rates
 * (session 35 read it as cpu-hotspot on the arithmetic), the other a fast indexed query's
 * result (no rule reached WARN). With the agent's table {@code lru-maps} the verdict names the
 * map, its bound, how often it evicts, and the method that fills it.
 */
class OutsideLruMapsTest {

    @Test
    void aMapThatEvictsOnMostRequestsIsNamedWithWhatItsMissesCostOnTheCpu() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-lru-map-cpu"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.RegionRates.rate:28");
        assertThat(f.summary()).isEqualTo("the LRU map shop.RegionRates$1 keeps 64 entries and threw one out on 84 % of the"
                + " requests (109,412 evictions): each eviction is a value that shop.RegionRates.rate, which fills the map,"
                + " computes again; shop.RegionRates.rate holds 50 % of the CPU samples.");  // 42 % before the fixture's profile was trimmed
        assertThat(f.fix()).startsWith("Raise the bound of RegionRates$1 above the number of keys in use (it keeps 64;");
        assertThat(f.explains()).contains("cpu-hotspot", "slow-calls");
        assertThat(f.numbers()).extracting(Finding.NumberRef::ref).contains("tables/lru-maps#0", "profiles/cpu.collapsed");
    }

    @Test
    void aMapFilledByAQueryIsWeighedByTheQuerysShareOfRequestTime() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-lru-map-sql"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.SkuPrices.average:25");
        assertThat(f.summary()).startsWith("the LRU map shop.SkuPrices$LruMap keeps 100 entries and threw one out on 74 % of the requests")
                .endsWith("the calls shop.SkuPrices.average makes to fill it (sql select avg(price) from quotes where sku = ?) take"
                        + " 69 % of the requests' time.");
    }

    @Test
    void aMapLargerThanItsKeysIsNoProblem() {
        assertThat(new CacheMissesRule().evaluate(Fixtures.evidence("outside-lru-map-cpu-fixed")).isProblem()).isFalse();
        assertThat(new CacheMissesRule().evaluate(Fixtures.evidence("outside-lru-map-sql-fixed")).isProblem()).isFalse();
    }
}
