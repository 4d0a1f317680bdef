package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import example.shop.LaneQuotes;
import example.shop.ReceiptArchive;
import example.shop.RegionRates;
import io.culprit.agent.instrument.Instrumenter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An application's LRU LinkedHashMap, woven through its removeEldestEntry: fills, evictions, bound and the method that fills it. */
class LruMapsTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void aMapSmallerThanItsKeysCountsAnEvictionPerNewKeyAndNamesItsFiller() throws Exception {
        new RegionRates(1).rate("loaded");  // the map's class is loaded before the weave, as in a running service
        Probes p = Probes.ensure(ProbeContext.INST);
        RegionRates small = new RegionRates(64);
        for (int i = 0; i < 1_000; i++) small.rate("r-" + (i * 7919 % 400));  // 400 keys, visited in a scattered order
        RegionRates large = new RegionRates(1_024);
        for (int i = 0; i < 1_000; i++) large.rate("r-" + (i % 400));

        List<Map<String, Object>> rows = p.lruMaps.rows(2_000);
        assertThat(rows).hasSize(1);  // both instances are one class
        Map<String, Object> row = rows.get(0);
        assertThat((String) row.get("map")).startsWith(RegionRates.class.getName() + "$");
        assertThat(row).containsEntry("bound", 64);
        long inserts = (Long) row.get("inserts");
        long evictions = (Long) row.get("evictions");
        assertThat(inserts).as("every miss fills: the small map misses on every call (a key recurs 400 calls later), the large once per key")
                .isEqualTo(1_000 + 400);
        assertThat(evictions).as("the small map evicts for all but its first 64 fills; the large never").isEqualTo(1_000 - 64);
        assertThat((String) row.get("filler")).startsWith(RegionRates.class.getName() + ".rate:");
        assertThat((double) row.get("evictionsPerRequest")).isEqualTo(evictions / 2_000.0);
        assertThat(row).containsEntry("key", "java.lang.String").containsEntry("keyEquality", "value");
        // 400 keys through 64 places: the evicted keys come back and are evicted again.
        long sampled = (Long) row.get("sampledEvictions"), returned = (Long) row.get("returnedKeys");
        assertThat(sampled).isPositive();
        assertThat(returned).isGreaterThan(sampled / 3);
        assertThat(ProbeContext.run(new CachesCommand(), false).text())
                .containsPattern("RegionRates\\$1\\s+64\\s+1400\\s+936\\s+\\S+\\s+example\\.shop\\.RegionRates\\.rate:");
    }

    @Test
    void anArchiveOfKeysThatNeverRepeatEvictsOnEveryInsertAndNoKeyComesBack() throws Exception {
        new ReceiptArchive().issue("loaded");
        Probes p = Probes.ensure(ProbeContext.INST);
        ReceiptArchive archive = new ReceiptArchive();
        for (int i = 0; i < 5_000; i++) archive.issue("receipt " + i);

        Map<String, Object> row = p.lruMaps.rows(5_000).get(0);
        assertThat(row).containsEntry("evictions", 4_800L).containsEntry("returnedKeys", 0L);
        assertThat((Long) row.get("sampledEvictions")).as("about one in 16 of 4,800").isBetween(100L, 600L);
    }

    @Test
    void aKeyWithoutEqualsMissesEveryTimeAndIsNamed() throws Exception {
        new LaneQuotes().quote("DE", "FR");
        Probes p = Probes.ensure(ProbeContext.INST);
        LaneQuotes quotes = new LaneQuotes();
        for (int i = 0; i < 1_000; i++) quotes.quote("DE", "FR");  // one lane, asked 1,000 times

        Map<String, Object> row = p.lruMaps.rows(1_000).get(0);
        assertThat(row).containsEntry("inserts", 1_000L).containsEntry("evictions", 900L);
        assertThat(row).containsEntry("key", LaneQuotes.class.getName() + "$Lane").containsEntry("keyEquality", "identity");
        assertThat(LruMaps.comparesByIdentity(java.util.List.class)).isFalse();
        assertThat(LruMaps.comparesByIdentity(java.util.concurrent.TimeUnit.class)).as("an enum's constants are its values").isFalse();
        assertThat(LruMaps.comparesByIdentity(Object.class)).isTrue();
    }

    @Test
    void theFirstViewSaysItStartedTheProbesRatherThanThatNothingHappens() throws Exception {
        assertThat(ProbeContext.run(new CachesCommand(), false).text())
                .startsWith("no LRU map took a new key since the probes started just now (run it again after some requests)");
    }

    @Test
    void frameworksMapsAreNotWoven() throws Exception {
        org.springframework.util.LinkedCaseInsensitiveMap<String> headers = new org.springframework.util.LinkedCaseInsensitiveMap<>();
        headers.put("Accept", "*/*");
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 100; i++) headers.put("X-" + i, "v");
        assertThat(p.lruMaps.isEmpty()).isTrue();
    }
}
