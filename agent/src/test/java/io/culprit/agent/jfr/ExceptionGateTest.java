package io.culprit.agent.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.collect.CollectCommand;
import io.culprit.jfr.CulpritSettings;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recording of culprit's, without exception events of its own, beside the gate: a storm of
 * throws reaches it as a sample within the budget, and throws after the storm reach it whole.
 */
class ExceptionGateTest {
    static final Instrumentation INST = ByteBuddyAgent.install();
    static volatile int sink;

    @Test
    void aStormIsSampledAndLaterThrowsAreAllRecorded(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("r.jfr");
        long stormThrows = 0;
        try (ExceptionGate.Lease lease = ExceptionGate.lease(INST);
             Recording r = new Recording(CulpritSettings.withoutThrows(CulpritSettings.settings()))) {
            assertThat(ExceptionGate.gating()).as("JFR's throwable counter is readable on this JDK").isTrue();
            r.start();
            // Two seconds of throws, and at least 60,000 of them: a loaded machine lengthens the storm rather than thinning it.
            long start = System.nanoTime(), end = start + 2_000_000_000L, limit = start + 20_000_000_000L;
            while ((System.nanoTime() < end || stormThrows < 60_000) && System.nanoTime() < limit) {
                throwCaught("storm");
                stormThrows++;
            }
            // Closed for at most MAX_CLOSED_NS after the storm; then a tick at a low rate opens it.
            long waitEnd = System.nanoTime() + ExceptionGate.MAX_CLOSED_NS + 2_000_000_000L;
            while (!ExceptionGate.open() && System.nanoTime() < waitEnd) Thread.sleep(20);
            assertThat(ExceptionGate.open()).as("open again after the storm").isTrue();
            for (int i = 0; i < 5; i++) throwCaught("after");
            r.stop();
            r.dump(jfr);
            assertThat(ExceptionGate.closings()).isPositive();
        }
        long storm = events(jfr, "storm"), after = events(jfr, "after");
        // Two seconds at the budget, give or take the first tick's overshoot, of far more throws.
        assertThat(stormThrows).isGreaterThan(50_000);
        assertThat(storm).isPositive().isLessThan(stormThrows / 5);
        assertThat(after).as("every throw once the storm is over").isEqualTo(5);
        assertThat(ExceptionGate.running()).isFalse();
        assertThat(FlightRecorder.getFlightRecorder().getRecordings()).noneMatch(x -> ExceptionGate.NAME.equals(x.getName()));
    }

    @Test
    void theCommandsThatLeaseTheGateEndItWhenTheyStop(@TempDir Path dir) throws Exception {
        CollectCommand collect = new CollectCommand();
        collect.run(List.of("start", "--no-probes"), new Ctx());
        assertThat(ExceptionGate.running()).isTrue();
        JfrCommand jfr = new JfrCommand();
        jfr.run(List.of("start"), new Ctx());
        collect.run(List.of("stop", "--case", dir.resolve("case").toString()), new Ctx());
        assertThat(ExceptionGate.running()).as("the recording still holds a lease").isTrue();
        jfr.run(List.of("stop", "--file", dir.resolve("r.jfr").toString()), new Ctx());
        assertThat(ExceptionGate.running()).as("no lease left").isFalse();
    }

    private static void throwCaught(String message) {
        try {
            throw new IllegalStateException(message);
        } catch (IllegalStateException e) {
            sink++;
        }
    }

    private static long events(Path jfr, String message) throws Exception {
        long n = 0;
        try (RecordingFile f = new RecordingFile(jfr)) {
            while (f.hasMoreEvents()) {
                var e = f.readEvent();
                if (e.getEventType().getName().equals("jdk.JavaExceptionThrow") && message.equals(e.getString("message"))) n++;
            }
        }
        return n;
    }
}
