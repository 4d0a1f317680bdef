package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.jfr.collect.Observation;
import io.culprit.model.Table;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What asked for a collection or a stop, from a real recording with culprit's settings:
 * System.gc() by its caller in {@code gc-causes}, Thread.getAllStackTraces as ThreadDump
 * operations asked by the calling thread in {@code vm-operations}.
 */
class JvmTriggersTest {

    @Test
    void systemGcIsACauseWithItsCallerAndThreadDumpsAreVmOperationsWithTheirThread() throws Exception {
        Path jfr = Recordings.record(() -> {
            for (int i = 0; i < 3; i++) purge();
            Thread dumper = new Thread(() -> {
                for (int i = 0; i < 20; i++) Thread.getAllStackTraces();
            }, "dumper-7");
            dumper.start();
            dumper.join();
        });
        Map<String, Table> tables = JfrFiles.read(jfr).tables(new Observation(0, Long.MAX_VALUE / 2, 0));

        Table causes = tables.get("gc-causes");
        assertThat(causes).isNotNull();
        int gc = row(causes, "cause", "System.gc()");
        assertThat(gc).as("causes: %s", causes.rows()).isGreaterThanOrEqualTo(0);
        assertThat(causes.number(gc, "count")).isGreaterThanOrEqualTo(3);
        assertThat(causes.number(gc, "calls")).isEqualTo(3);
        assertThat(causes.text(gc, "site")).startsWith(JvmTriggersTest.class.getName() + ".purge:");

        Table ops = tables.get("vm-operations");
        assertThat(ops).isNotNull();
        int dump = row(ops, "operation", "ThreadDump");
        assertThat(dump).as("operations: %s", ops.rows()).isGreaterThanOrEqualTo(0);
        assertThat(ops.number(dump, "count")).isGreaterThanOrEqualTo(20);
        assertThat(ops.text(dump, "caller")).isEqualTo("dumper-#");
        assertThat(ops.number(dump, "callerShare")).isEqualTo(1.0);
    }

    /** Objects with a finalize() that does something (HotSpot ignores an empty one): a collection finds them as final references. */
    @Test
    void finalizableObjectsAreCountedAsFinalReferences() throws Exception {
        Path jfr = Recordings.record(() -> {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 20_000; i++) sink = new Finalizable();
                purge();
            }
        });
        Table refs = JfrFiles.read(jfr).tables(new Observation(0, Long.MAX_VALUE / 2, 0)).get("gc-references");
        assertThat(refs).isNotNull();
        int row = row(refs, "type", "Final reference");
        assertThat(row).as("references: %s", refs.rows()).isGreaterThanOrEqualTo(0);
        assertThat(refs.number(row, "count")).isGreaterThanOrEqualTo(20_000);
        assertThat(refs.number(row, "maxPerGc")).isGreaterThan(0).isLessThanOrEqualTo(refs.number(row, "count"));
    }

    static volatile Object sink;
    static final java.util.concurrent.atomic.AtomicLong FINALIZED = new java.util.concurrent.atomic.AtomicLong();

    static final class Finalizable {
        @SuppressWarnings({"deprecation", "removal"})
        @Override protected void finalize() {
            FINALIZED.incrementAndGet();
        }
    }

    private static void purge() {
        System.gc();
    }

    private static int row(Table t, String column, String value) {
        for (int i = 0; i < t.rows().size(); i++) if (value.equals(t.text(i, column))) return i;
        return -1;
    }
}
