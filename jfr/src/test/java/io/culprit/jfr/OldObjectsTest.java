package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.jfr.collect.Observation;
import io.culprit.model.Table;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * JFR's leak profiler through culprit's reading of a recording: the samples are written when the
 * recording stops, after the measured window, and must still be read; the objects a method kept
 * are named by that method; garbage allocated beside them is not.
 */
class OldObjectsTest {
    /** What the workload keeps: the leak. */
    private static final List<byte[]> KEPT = new ArrayList<>();

    @Test
    void theSurvivorsOfTheWindowAreNamedByTheMethodThatAllocatedThem() throws Exception {
        long[] window = new long[2];
        long[] garbage = new long[1];
        Path jfr = Recordings.record(CulpritSettings.leakProfiler(), () -> {
            window[0] = System.currentTimeMillis();
            Recordings.paced(2_000, 1_500, () -> {
                keep();
                garbage[0] += new byte[16 * 1024].length;  // allocated as much again, and dropped
            });
            window[1] = System.currentTimeMillis();
            System.gc();  // the dropped arrays die, and with them their samples
        });
        Observation o = new Observation(window[0], window[1], 0);
        Table t = JfrFiles.read(jfr, o).tables(o).get("old-objects");
        KEPT.clear();

        assertThat(t).as("old-objects table").isNotNull();
        System.out.printf("old-objects: %s of %s samples inside the window; top %s %s (%s), first/median s %s, dropped %d MB%n",
                t.meta().get("samples"), t.meta().get("samplesAll"), t.text(0, "site"), t.text(0, "topClass"), t.number(0, "share"),
                t.number(0, "firstS") + "/" + t.number(0, "medianS"), garbage[0] >> 20);
        assertThat(t.number(0, "samples")).isGreaterThanOrEqualTo(10);
        assertThat(t.text(0, "site")).isEqualTo(OldObjectsTest.class.getName() + ".keep");
        assertThat(t.text(0, "topClass")).isEqualTo("byte[]");
        assertThat(t.number(0, "share")).isGreaterThan(0.8);
        // Survivors from the window's start: the JVM's sample queue (256) fills with the first kept
        // objects and takes a later candidate only over the one that stands for the fewest bytes.
        assertThat(t.number(0, "firstS")).isLessThan(0.5);
    }

    private static void keep() {
        KEPT.add(new byte[16 * 1024]);
    }
}
