package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Evidence;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An LRU map's evictions per request and what its filler costs, each a threshold of its own. */
class ThrashingLruTest {
    @TempDir Path dir;

    /** 10,000 requests; the filler com.acme.Rates.rate on {@code fillerSamples} of 100 CPU samples. */
    private Evidence lru(long evictions, int fillerSamples) {
        return lru(evictions, fillerSamples, evictions / 16, evictions / 32);
    }

    /** The same, with {@code sampled} evicted keys sampled of which {@code returned} had been evicted before. */
    private Evidence lru(long evictions, int fillerSamples, long sampled, long returned) {
        String profile = "java.lang.Thread.run;com.acme.Api.get;com.acme.Rates.rate;com.acme.Rates.compute " + fillerSamples + "\n"
                + "java.lang.Thread.run;com.acme.Api.get;com.acme.Json.write " + (100 - fillerSamples) + "\n";
        return CaseBuilder.in(dir, 10, 2)
                .tableWithMeta("lru-maps", Map.of("requests", 10_000), row("map", "com.acme.Rates$1", "bound", 64, "inserts", evictions + 64,
                        "evictions", evictions, "filler", "com.acme.Rates.rate:28", "fillPath", "com.acme.Rates.rate:28 ← com.acme.Api.get:12",
                        "key", "java.lang.String", "keyEquality", "value", "sampledEvictions", sampled, "returnedKeys", returned))
                .file("profiles/cpu.collapsed", profile).evidence();
    }

    @Test
    void evictingOnMostRequestsWithACostlyFillerIsTheFinding() {
        Finding f = new CacheMissesRule().evaluate(lru(8_000, 40));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.acme.Rates.rate:28");
        assertThat(f.summary()).startsWith("the LRU map com.acme.Rates$1 keeps 64 entries and threw one out on 80 % of the requests"
                + " (8,000 evictions)").endsWith("com.acme.Rates.rate holds 40 % of the CPU samples.");
        assertThat(new CacheMissesRule().evaluate(lru(8_000, 15)).severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void aCheapFillerOrARareEvictionIsRuledOutWithWhatTheMapsDid() {
        Finding cheap = new CacheMissesRule().evaluate(lru(8_000, 5));
        assertThat(cheap.isProblem()).isFalse();
        assertThat(cheap.summary()).endsWith("The LRU map com.acme.Rates$1 evicted on 80 % of the requests, but what"
                + " com.acme.Rates.rate does to fill it costs 5.0 %: too little to matter.");
        Finding rare = new CacheMissesRule().evaluate(lru(400, 40));  // 4 % of requests: the map keeps its working set
        assertThat(rare.isProblem()).isFalse();
        assertThat(rare.summary()).endsWith("The application's LRU maps evicted on fewer than 5.0 % of the requests.");
    }

    /** The lab's receipt-leak fixed twin: the newest 200 receipts by a number that never repeats, and a costly issuer. */
    @Test
    void aMapWhoseEvictedKeysNeverComeBackIsAnArchiveNotAThrashingCache() {
        Finding f = new CacheMissesRule().evaluate(lru(9_500, 40, 600, 0));
        assertThat(f.isProblem()).isFalse();
        assertThat(f.summary()).endsWith("The LRU map com.acme.Rates$1 evicted on 95 % of the requests, but none of the 600 evicted"
                + " keys sampled came back: it keeps the newest entries of keys that do not repeat, and an eviction recomputes nothing.");
        // Too few sampled to say: read as before.
        assertThat(new CacheMissesRule().evaluate(lru(9_500, 40, 20, 0)).severity()).isEqualTo(Severity.CRITICAL);
    }
}
