package io.culprit.jfr.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.jfr.CulpritSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Frames.of formats a stack the parser hands out again once, and formats it as the frames say. */
class FramesCacheTest {

    @Test
    void eventsSharingAStackShareOneFormattedList(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("throws.jfr");
        try (Recording r = new Recording(CulpritSettings.configuration())) {
            r.start();
            for (int i = 0; i < 200; i++) throwAndCatch();
            r.stop();
            r.dump(jfr);
        }
        Map<RecordedStackTrace, List<String>> byStack = new IdentityHashMap<>();
        List<Boolean> sameListForSameStack = new ArrayList<>();
        List<String> expectedTop = new ArrayList<>();
        try (RecordingFile file = new RecordingFile(jfr)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                RecordedStackTrace st = e.getStackTrace();
                if (!e.getEventType().getName().equals("jdk.JavaExceptionThrow") || st == null
                        || !Marker.class.getName().equals(e.getClass("thrownClass").getName())) continue;
                List<String> formatted = Frames.of(st);
                List<String> before = byStack.putIfAbsent(st, formatted);
                if (before != null) sameListForSameStack.add(before == formatted);
                RecordedFrame top = st.getFrames().get(0);
                expectedTop.add(top.getMethod().getType().getName() + "." + top.getMethod().getName()
                        + (top.getLineNumber() > 0 ? ":" + top.getLineNumber() : ""));
                assertThat(formatted.get(0)).isEqualTo(expectedTop.get(expectedTop.size() - 1));
                assertThat(formatted).hasSize(Math.min(Frames.MAX_FRAMES, st.getFrames().size()));
            }
        }
        assertThat(expectedTop).hasSize(200);
        // 200 throws from one site: far fewer stack objects than events, each formatted once.
        assertThat(byStack.size()).isLessThan(20);
        assertThat(sameListForSameStack).isNotEmpty().containsOnly(true);
        assertThat(Frames.fromThrowSite(byStack.values().iterator().next())).anyMatch(f -> f.contains("throwAndCatch"));
        List<String> any = byStack.values().iterator().next();
        assertThatThrownBy(() -> any.add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    private static void throwAndCatch() {
        try {
            throw new Marker();
        } catch (Marker expected) {
            // swallowed on purpose: the recording's exception events are the fixture
        }
    }

    static final class Marker extends RuntimeException {
        Marker() {
            super("marker");
        }
    }
}
