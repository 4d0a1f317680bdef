package io.culprit.agent.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leak profiler starts only once the heap after GC grows, and what it then records names the
 * code that keeps the objects.
 */
class LeakWatchTest {
    private static final long MB = 1 << 20;
    private static final List<byte[]> KEPT = new ArrayList<>();

    @Test
    void aSteadyOrSlightlyDriftingHeapDoesNotStartIt() {
        LeakWatch.Trigger t = LeakWatch.Trigger.forHeap(256 * MB);  // 12.8 MB of growth needed
        for (int i = 0; i < 50; i++) assertThat(t.afterGc((40 + i % 3) * MB)).isNull();
        LeakWatch.Trigger drift = LeakWatch.Trigger.forHeap(256 * MB);
        for (int i = 0; i < 20; i++) assertThat(drift.afterGc(40 * MB + i * (MB / 2))).as("collection %d", i).isNull();
    }

    @Test
    void aRisingFloorStartsItOnceTheLastFewCollectionsAllSitAboveTheFirstFew() {
        LeakWatch.Trigger t = LeakWatch.Trigger.forHeap(256 * MB);
        String why = null;
        int at = 0;
        while (why == null && at < 50) why = t.afterGc(40 * MB + at * 3 * MB - (at++ % 2 == 1 ? 5 * MB : 0));
        // A sawtooth that climbs: 12.8 MB needed between the lowest of the last three and of the first three (38).
        assertThat(why).contains("rose").contains("MB over 9 collections");
        assertThat(at).isEqualTo(9);
        // Each collection above the last: four of them, once they rose by 12.8 MB (40 → 55 at the sixth).
        LeakWatch.Trigger steady = LeakWatch.Trigger.forHeap(256 * MB);
        why = null;
        at = 0;
        while (why == null && at < 50) why = steady.afterGc(40 * MB + at++ * 3 * MB);
        assertThat(why).isEqualTo("the heap after GC rose 15 MB over 6 collections, each above the last");
        assertThat(at).isEqualTo(6);
        // One high value among low ones is a collection that ran late, not a leak.
        LeakWatch.Trigger spike = LeakWatch.Trigger.forHeap(256 * MB);
        for (int i = 0; i < 20; i++) assertThat(spike.afterGc((i % 3 == 0 ? 90 : 40) * MB)).isNull();
    }

    @Test
    void inThisJvmItStartsOnAGrowingHeapAndItsSamplesNameTheKeeper(@TempDir Path dir) throws Exception {
        LeakWatch w = LeakWatch.start(new LeakWatch.Trigger(4 * MB));
        try {
            for (int i = 0; i < 40 && !w.profiling(); i++) {
                for (int k = 0; k < 16; k++) keep();
                System.gc();
                Thread.sleep(20);  // notifications arrive on the JDK's notification thread
            }
            assertThat(w.profiling()).as(w.describe()).isTrue();
            // The sampler keeps a few hundred samples of all the JVM's allocations, weighted by size:
            // enough of keep()'s that the suite's other threads (allocating too) cannot crowd them out.
            for (int i = 0; i < 8; i++) {
                for (int k = 0; k < 64; k++) keep();
                System.gc();
            }
            Path out = dir.resolve("leaks.jfr");
            w.stopInto(out);
            long named = 0;
            try (RecordingFile f = new RecordingFile(out)) {
                while (f.hasMoreEvents()) {
                    RecordedEvent e = f.readEvent();
                    if (e.getEventType().getName().equals("jdk.OldObjectSample") && e.getStackTrace() != null
                            && e.getStackTrace().getFrames().stream().anyMatch(fr -> fr.getMethod().getName().equals("keep"))) named++;
                }
            }
            assertThat(named).as("old-object samples allocated in keep()").isGreaterThanOrEqualTo(10);
        } finally {
            w.close();
            KEPT.clear();
        }
    }

    private static void keep() {
        KEPT.add(new byte[64 * 1024]);
    }
}
