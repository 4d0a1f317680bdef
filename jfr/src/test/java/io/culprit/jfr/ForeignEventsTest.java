package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A library's own JFR event (JDBI's statement event) is enabled, with its stack, in any recording
 * whose settings leave it out; culprit's recordings switch such events off, those registered
 * before they start and those registered while they run.
 */
class ForeignEventsTest {
    /** Registered when first committed, before the recordings below start. */
    @Name("acme.Statement")
    static final class Statement extends Event { }

    /** Registered only once a recording runs: a library's first use after the attach. */
    @Name("acme.LateStatement")
    static final class LateStatement extends Event { }

    @Test
    void aLibrarysEventsAreOffInCulpritsRecordingsButOnWithoutIt(@TempDir Path dir) throws Exception {
        new Statement().commit();  // registers the type
        Map<String, String> settings = CulpritSettings.only(Set.of("jdk.GarbageCollection"));

        // First culprit's: the late type registers while it runs, and only the recheck switches it off.
        List<RecordedEvent> own = record(ForeignEvents.off(settings), true, dir.resolve("own.jfr"));
        assertThat(names(own)).doesNotContain("acme.Statement", "acme.LateStatement");

        // Without ForeignEvents, JFR records the library's events although the settings do not name them.
        assertThat(names(record(settings, false, dir.resolve("plain.jfr")))).contains("acme.Statement", "acme.LateStatement");
    }

    private static List<RecordedEvent> record(Map<String, String> settings, boolean watched, Path file) throws Exception {
        try (Recording r = new Recording(settings)) {
            r.start();
            if (watched) ForeignEvents.watch(r, settings);
            for (int i = 0; i < 5; i++) new Statement().commit();
            FlightRecorder.register(LateStatement.class);
            if (watched) {
                ForeignEvents.recheckNow();
                ForeignEvents.forget(r);
            }
            for (int i = 0; i < 5; i++) new LateStatement().commit();
            r.stop();
            r.dump(file);
        }
        return RecordingFile.readAllEvents(file);
    }

    private static Set<String> names(List<RecordedEvent> events) {
        return events.stream().map(e -> e.getEventType().getName()).collect(Collectors.toSet());
    }
}
