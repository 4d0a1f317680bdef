package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.culprit.jfr.collect.Observation;
import io.culprit.model.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * Exception events switched off half of the time, as culprit's exception gate does above its
 * budget: the tables count the throwables JFR's statistics counted, not the events that were kept.
 */
class SampledExceptionsTest {

    @Test
    void countsAreScaledToTheThrowablesWhenTheEventsAreASample() throws Exception {
        Path out = Files.createTempFile("culprit-test", ".jfr");
        out.toFile().deleteOnExit();
        long calls = 0;
        try (Recording r = new Recording(CulpritSettings.configuration())) {
            r.start();
            for (int slice = 0; slice < 12; slice++) {
                if (slice % 2 == 0) r.enable("jdk.JavaExceptionThrow").withStackTrace();
                else r.disable("jdk.JavaExceptionThrow");
                calls += Recordings.paced(2000, 250, ExceptionEvidenceTest::lookUpMissingClass);
            }
            r.stop();
            r.dump(out);
        }
        long events = RecordingFile.readAllEvents(out).stream()
                .filter(e -> e.getEventType().getName().equals("jdk.JavaExceptionThrow")).count();
        assertThat((double) events).as("about half the throws recorded").isCloseTo(calls / 2.0, within(calls * 0.15));

        JfrEvidence ev = JfrFiles.read(out);
        Map<String, Table> tables = ev.tables(ev.observed(0));
        Table ex = tables.get("exceptions");
        int row = ExceptionEvidenceTest.rowWhere(ex, "type", "java.lang.ClassNotFoundException");
        // The first and last statistics events bound the span; throws outside it are not counted.
        assertThat(ex.number(row, "count")).isCloseTo(calls, within(calls * 0.2)).isGreaterThan(events * 1.3);
        assertThat(((Number) ex.meta().get("eventShare")).doubleValue()).isCloseTo(0.5, within(0.15));
        Table cl = tables.get("classloading");
        int miss = ExceptionEvidenceTest.rowWhere(cl, "name", "does.not.Exist");
        assertThat(cl.number(miss, "count")).isCloseTo(ex.number(row, "count"), within(1.0));
    }

    /**
     * Class misses among many other throwables are scaled by the share of all exception events
     * kept, not by class misses over all throwables: CI's binding-exceptions run (68 other throwables
     * per request) once turned a few class misses into "68 class misses per request".
     */
    @Test
    void classMissesAmongOtherThrowablesAreScaledByTheShareOfAllEvents() throws Exception {
        Path out = Files.createTempFile("culprit-test", ".jfr");
        out.toFile().deleteOnExit();
        long calls = 0;
        try (Recording r = new Recording(CulpritSettings.configuration())) {
            r.start();
            for (int slice = 0; slice < 12; slice++) {
                if (slice % 2 == 0) r.enable("jdk.JavaExceptionThrow").withStackTrace();
                else r.disable("jdk.JavaExceptionThrow");
                calls += Recordings.paced(500, 250, () -> {
                    for (int i = 0; i < 9; i++) {
                        try {
                            throw new IllegalStateException("not a class miss");
                        } catch (IllegalStateException ignored) {
                            // swallowed, as binding errors are
                        }
                    }
                    ExceptionEvidenceTest.lookUpMissingClass();
                });
            }
            r.stop();
            r.dump(out);
        }
        JfrEvidence ev = JfrFiles.read(out);
        Table cl = ev.tables(ev.observed(0)).get("classloading");
        double misses = cl.number(ExceptionEvidenceTest.rowWhere(cl, "name", "does.not.Exist"), "count");
        System.out.printf("class misses: %d made, %.0f counted%n", calls, misses);
        assertThat(misses).isCloseTo(calls, within(calls * 0.25));
    }
}
