package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.culprit.jfr.collect.Observation;
import io.culprit.model.Table;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Seed 3's swallowed ClassNotFoundException, 1,000 times a second, seen from a recording. */
class ExceptionEvidenceTest {
    static long calls;
    static long elapsedMs;
    static Map<String, Table> tables;

    @BeforeAll
    static void record() throws Exception {
        Path jfr = Recordings.record(() -> {
            long t0 = System.currentTimeMillis();
            calls = Recordings.paced(1000, 2000, ExceptionEvidenceTest::lookUpMissingClass);
            elapsedMs = System.currentTimeMillis() - t0;
        });
        JfrEvidence ev = JfrFiles.read(jfr);
        Observation o = ev.observed(0);
        tables = ev.tables(o);
    }

    static void lookUpMissingClass() {
        try {
            Class.forName("does.not.Exist");
        } catch (ClassNotFoundException swallowed) {
            // the point of the workload: a caught, invisible exception
        }
    }

    @Test
    void exceptionsTableNamesTypeSiteAndRate() {
        Table t = tables.get("exceptions");
        int row = rowWhere(t, "type", "java.lang.ClassNotFoundException");
        assertThat(t.text(row, "site")).startsWith("io.culprit.jfr.ExceptionEvidenceTest.lookUpMissingClass:");
        // Every throw is recorded: the count is the workload's own count, 2 % slack for JFR buffer loss.
        assertThat(t.number(row, "count")).isCloseTo(calls, within(calls * 0.02));
        // Rate over the recording's span (slightly longer than the workload): within 15 % of what the
        // workload achieved (1,000/s asked; a loaded machine may deliver less).
        assertThat(t.number(row, "perSecond")).isCloseTo(achieved(), within(achieved() * 0.15));
        assertThat(t.text(row, "message")).isEqualTo("does.not.Exist");
        assertThat(t.rows().get(row).get("caught")).as("unknown from a file").isNull();
        assertThat(t.text(row, "stack")).contains("java.lang.Class.forName");
        assertThat(t.meta().get("source")).isEqualTo("jdk.JavaExceptionThrow");
    }

    @Test
    void classLoadingTableNamesTheCaller() {
        Table t = tables.get("classloading");
        int row = rowWhere(t, "name", "does.not.Exist");
        assertThat(t.text(row, "kind")).isEqualTo("class-miss");
        assertThat(t.text(row, "caller")).startsWith("io.culprit.jfr.ExceptionEvidenceTest.lookUpMissingClass:");
        assertThat(t.number(row, "perSecond")).isCloseTo(achieved(), within(achieved() * 0.15));
    }

    static double achieved() {
        return calls * 1000.0 / elapsedMs;
    }

    static int rowWhere(Table t, String column, String value) {
        for (int i = 0; i < t.rows().size(); i++) if (value.equals(t.text(i, column))) return i;
        throw new AssertionError("no row with " + column + "=" + value + " in " + t.rows());
    }
}
