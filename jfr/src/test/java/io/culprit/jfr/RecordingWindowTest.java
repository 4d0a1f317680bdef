package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.jfr.collect.Observation;
import io.culprit.model.Table;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A recording started before a warm-up, read for the measured window only (what diagnose does):
 * the warm-up's exceptions stay out, the window's are all there, and the JVM's description (written
 * at the chunk's start, before the window) is still read.
 */
class RecordingWindowTest {
    static final class WarmUpOnly extends RuntimeException {
        WarmUpOnly(String m) { super(m); }
    }
    static final class WindowOnly extends RuntimeException {
        WindowOnly(String m) { super(m); }
    }

    @Test
    void readsOnlyTheWindowAndTheJvmDescription() throws Exception {
        long[] window = new long[2];
        long[] thrown = new long[1];
        Path jfr = Recordings.record(() -> {
            Recordings.paced(500, 600, () -> swallow(new WarmUpOnly("warm-up")));
            Thread.sleep(50);  // a gap, so no event of either phase lands on the boundary's millisecond
            window[0] = System.currentTimeMillis();
            thrown[0] = Recordings.paced(500, 600, () -> swallow(new WindowOnly("measured")));
            window[1] = System.currentTimeMillis();
            Thread.sleep(50);
            Recordings.paced(500, 300, () -> swallow(new WarmUpOnly("after")));
        });
        Observation o = new Observation(window[0], window[1], 0);

        JfrEvidence all = JfrFiles.read(jfr);
        assertThat(count(all.tables(all.observed(0)), WarmUpOnly.class)).as("whole recording").isPositive();

        JfrEvidence windowed = JfrFiles.read(jfr, o);
        Map<String, Table> tables = windowed.tables(o);
        assertThat(count(tables, WarmUpOnly.class)).as("outside the window").isZero();
        assertThat(count(tables, WindowOnly.class)).as("inside the window").isGreaterThanOrEqualTo(thrown[0] * 98 / 100);
        assertThat(windowed.target()).as("JVM description from the chunk header").containsKey("jdk");
    }

    private static void swallow(RuntimeException e) {
        try {
            throw e;
        } catch (RuntimeException ignored) {
            // a caught exception: what the exceptions table counts
        }
    }

    private static long count(Map<String, Table> tables, Class<?> type) {
        Table t = tables.get("exceptions");
        if (t == null) return 0;
        long n = 0;
        for (int i = 0; i < t.rows().size(); i++) if (type.getName().equals(t.text(i, "type"))) n += (long) t.number(i, "count");
        return n;
    }
}
