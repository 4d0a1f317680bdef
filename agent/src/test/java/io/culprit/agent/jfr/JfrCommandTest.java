package io.culprit.agent.jfr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.agent.command.CommandException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jfr start|dump|stop} record with culprit's settings, not the JDK's defaults. */
class JfrCommandTest {
    @Test
    void recordsWithCulpritSettings(@TempDir Path dir) throws Exception {
        JfrCommand cmd = new JfrCommand();
        cmd.run(List.of("start"), new Ctx());
        try {
            assertThatThrownBy(() -> cmd.run(List.of("start"), new Ctx())).isInstanceOf(CommandException.class)
                    .hasMessageContaining("already running");
            try {
                Class.forName("not.There"); // caught: only recorded because culprit.jfc enables exceptions
            } catch (ClassNotFoundException expected) {
                // the event under test
            }
            Ctx dump = new Ctx();
            cmd.run(List.of("dump", "--file", dir.resolve("so-far.jfr").toString()), dump);
            assertThat(dump.text()).contains("dumped").contains("culprit analyze");
            Ctx status = new Ctx();
            cmd.run(List.of("status"), status);
            assertThat(status.text()).contains("running since");
        } finally {
            cmd.run(List.of("stop", "--file", dir.resolve("all.jfr").toString()), new Ctx());
        }
        assertThat(exceptionEvents(dir.resolve("all.jfr"))).as("caught exceptions recorded").isGreaterThan(0);
        assertThat(JfrCommand.current()).isEmpty();
        assertThatThrownBy(() -> cmd.run(List.of("stop"), new Ctx())).isInstanceOf(CommandException.class)
                .hasMessageContaining("no culprit recording");
    }

    /** Beside async-profiler, diagnose records without JFR's own CPU sampler: the same recording, no samples. */
    @Test
    void noSamplesLeavesJfrsSamplerOff(@TempDir Path dir) throws Exception {
        JfrCommand cmd = new JfrCommand();
        Ctx start = new Ctx();
        cmd.run(List.of("start", "--no-samples"), start);
        assertThat(start.text()).contains("no CPU samples");
        long end = System.nanoTime() + 300_000_000L;
        long x = 0;
        while (System.nanoTime() < end) x += x * 31 + 7;  // on CPU, where JFR's sampler (20 ms) would take ~15
        assertThat(x).isNotEqualTo(1);
        assertThatThrownBy(() -> cmd.run(List.of("stop", "--no-samples"), new Ctx())).isInstanceOf(CommandException.class)
                .hasMessageContaining("--no-samples belongs to start");
        cmd.run(List.of("stop", "--file", dir.resolve("quiet.jfr").toString()), new Ctx());
        long samples = 0, events = 0;
        try (RecordingFile f = new RecordingFile(dir.resolve("quiet.jfr"))) {
            while (f.hasMoreEvents()) {
                events++;
                if (f.readEvent().getEventType().getName().equals("jdk.ExecutionSample")) samples++;
            }
        }
        assertThat(events).as("the rest of the recording").isPositive();
        assertThat(samples).isZero();
    }

    static long exceptionEvents(Path jfr) throws Exception {
        long n = 0;
        assertThat(Files.size(jfr)).isGreaterThan(0);
        try (RecordingFile f = new RecordingFile(jfr)) {
            while (f.hasMoreEvents()) {
                var e = f.readEvent();
                if (e.getEventType().getName().equals("jdk.JavaExceptionThrow")
                        && "not.There".equals(e.getString("message"))) n++;
            }
        }
        return n;
    }
}
