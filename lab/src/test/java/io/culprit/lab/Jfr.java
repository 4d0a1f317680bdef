package io.culprit.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** Records JFR events in this JVM around an action, for tests that count what the JVM saw. */
final class Jfr {

    private Jfr() {
    }

    record Recorded<T>(T result, List<RecordedEvent> events) {
    }

    /** Runs {@code action} with the given events enabled ({@code settings}: event -> threshold or null). */
    static <T> Recorded<T> record(Map<String, String> settings, Callable<T> action) throws Exception {
        Path file = Files.createTempFile("lab-test", ".jfr");
        try (Recording r = new Recording()) {
            settings.forEach((event, threshold) -> {
                var s = r.enable(event).withStackTrace();
                if (threshold != null) {
                    s.withThreshold(java.time.Duration.parse(threshold));
                }
            });
            r.start();
            T result = action.call();
            r.stop();
            r.dump(file);
            return new Recorded<>(result, RecordingFile.readAllEvents(file));
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // A temp file left behind is harmless.
            }
        }
    }

    static boolean hasFrame(RecordedEvent e, String className, String method) {
        return e.getStackTrace() != null && e.getStackTrace().getFrames().stream()
                .anyMatch(f -> f.getMethod().getType().getName().equals(className) && f.getMethod().getName().equals(method));
    }
}
