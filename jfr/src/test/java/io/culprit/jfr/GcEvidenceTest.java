package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.culprit.model.Series;
import io.culprit.model.Table;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Paced allocation (known MB/s) in this JVM: G1 young pause sum against GarbageCollectorMXBean, and
 * allocation rate against what the thread really allocated. Tolerance: 20 %, plus 5 ms on the
 * pause sum because the MXBean counts whole milliseconds per collection.
 */
class GcEvidenceTest {
    static volatile Object sink;

    @Test
    void pauseSumAndAllocationRateMatchTheJvmsOwnCounters() throws Exception {
        long[] gcMs = new long[1];
        long[] allocated = new long[1];
        long[] elapsedNs = new long[1];
        Path jfr = Recordings.record(() -> {
            com.sun.management.ThreadMXBean tmx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long gc0 = youngGcMillis(), a0 = tmx.getThreadAllocatedBytes(Thread.currentThread().getId()), t0 = System.nanoTime();
            // 300 MB/s: 3 MB every 10 ms in 1 KB arrays.
            Recordings.paced(100, 3000, () -> {
                for (int i = 0; i < 3 * 1024; i++) sink = new byte[1024 - 16];
            });
            elapsedNs[0] = System.nanoTime() - t0;
            allocated[0] = tmx.getThreadAllocatedBytes(Thread.currentThread().getId()) - a0;
            gcMs[0] = youngGcMillis() - gc0;
        });
        JfrEvidence ev = JfrFiles.read(jfr);
        var o = ev.observed(0);
        Map<String, Series> series = new java.util.HashMap<>();
        ev.series(o).forEach(s -> series.put(s.name(), s));

        // Young collections on both sides: in JDK 17 the MXBeans do not count G1's remark and cleanup
        // pauses (JFR reports them under G1Old), so totals would differ for a reason that is not an error.
        Table byCollector = ev.tables(o).get("gc-collectors");
        double pauseSum = byCollector.number(ExceptionEvidenceTest.rowWhere(byCollector, "collector", "G1New"), "sumMs");
        assertThat(Arrays.stream(series.get("gc").column("pauseSumMs").orElseThrow()).sum()).isGreaterThanOrEqualTo(pauseSum - 0.001);
        assertThat(gcMs[0]).as("the workload must cause GCs").isGreaterThan(0);
        assertThat(pauseSum).isCloseTo(gcMs[0], within(Math.max(5.0, gcMs[0] * 0.2)));

        double actualMbPerSec = allocated[0] / (1024.0 * 1024.0) / (elapsedNs[0] / 1e9);
        double[] rates = Arrays.stream(series.get("alloc").column("mbPerSec").orElseThrow()).filter(d -> !Double.isNaN(d)).toArray();
        assertThat(rates).as("windows between GCs").isNotEmpty();
        double median = rates.length == 0 ? 0 : Arrays.stream(rates).sorted().toArray()[rates.length / 2];
        assertThat(median).isCloseTo(actualMbPerSec, within(actualMbPerSec * 0.2));

        // Who allocated: the paced lambda above, charged with most of the sampled bytes.
        Table sites = ev.tables(o).get("alloc-sites");
        assertThat(sites.rows()).isNotEmpty();
        assertThat(sites.text(0, "site")).startsWith("io.culprit.jfr.GcEvidenceTest.lambda$");
        assertThat(sites.number(0, "share")).isGreaterThan(0.8);
        assertThat(sites.number(0, "mb")).as("sampled bytes stand for what was allocated")
                .isCloseTo(allocated[0] / 1e6, within(allocated[0] / 1e6 * 0.5));

        Table collectors = ev.tables(o).get("gc-collectors");
        assertThat(collectors.rows()).isNotEmpty();
        Table config = ev.tables(o).get("heap-config");
        assertThat(config.text(0, "collector")).isEqualTo("G1");
        assertThat(config.number(0, "minHeapFreeRatio")).isEqualTo(40.0);
        assertThat(config.number(0, "maxMb")).isGreaterThan(0);
        assertThat(Arrays.stream(series.get("heap").column("usedAfterGcMb").orElseThrow()).anyMatch(d -> d > 0)).isTrue();
    }

    static long youngGcMillis() {
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (b.getName().equals("G1 Young Generation")) return b.getCollectionTime();
        }
        throw new AssertionError("this test compares G1 young pauses; run it on G1 (the default)");
    }
}
