package io.culprit.agent.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.agent.command.CommandException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** async-profiler in this JVM through the command, as the agent runs it. */
class ProfilerCommandTest {
    final ProfilerCommand cmd = new ProfilerCommand();

    @BeforeAll
    static void library() throws Exception {
    }

    @Test
    void cpuBurnerIsTheWidestFrameAndTheEngineIsReported(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("cpu.collapsed");
        TestContext start = new TestContext();
        TestContext stop = new TestContext();
        String expected;
        try (CpuBurner b = new CpuBurner()) {
            Thread.sleep(500); // warm-up: the JIT compiles the burner before the profile starts
            cmd.run(List.of("start", "--event", "cpu", "--interval", "5ms"), start);
            expected = (String) ((Map<?, ?>) start.data.get(0)).get("engine");
            Thread.sleep(2000); // the profiling window
            cmd.run(List.of("stop", "--format", "collapsed", "--file", out.toString()), stop);
        }
        assertThat(expected).isIn("perf_events", "ctimer");
        assertThat(start.text()).contains("engine " + expected);

        Map<?, ?> data = (Map<?, ?>) stop.data.get(0);
        // The engine comes from the recording itself and agrees with the prediction at start.
        assertThat(data.get("engine")).isEqualTo(expected);
        assertThat(stop.text()).contains("engine " + expected).contains(out.toString());

        Map<String, Long> total = new HashMap<>();
        Map<String, Long> self = new HashMap<>();
        long samples = 0;
        for (String line : Files.readAllLines(out)) {
            int sp = line.lastIndexOf(' ');
            long n = Long.parseLong(line.substring(sp + 1));
            String[] frames = line.substring(0, sp).split(";");
            samples += n;
            self.merge(frames[frames.length - 1], n, Long::sum);
            for (String f : new java.util.HashSet<>(List.of(frames))) total.merge(f, n, Long::sum);
        }
        String burner = CpuBurner.class.getName() + ".burnCpu";
        // The widest frame that does work itself: most samples on top of the stack, and a third or more of
        // all samples under it (JIT, GC and test threads share the process's CPU on a busy machine).
        assertThat(total.getOrDefault(burner, 0L)).as("burner share of %s samples", samples).isGreaterThan(samples / 3);
        String hottest = self.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        assertThat(hottest).isEqualTo(burner);
        assertThat(stop.text()).contains("hottest frames").contains(burner);
    }

    @Test
    void aSecondClassLoaderStopsAndRestartsTheSameProfiler(@TempDir Path dir) throws Exception {
        cmd.run(List.of("start", "--event", "wall"), new TestContext());
        try {
            // A re-attached agent: same classes, fresh loader. It must see and stop the running profiler.
            Object other = IsolatedCommand.load(ProfilerCommand.class);
            String status = IsolatedCommand.run(other, "status");
            assertThat(status).contains("Profiling is running").contains("event wall");
            String stopped = IsolatedCommand.run(other, "stop", "--format", "html", "--file", dir.resolve("w.html").toString());
            assertThat(stopped).contains("engine wall");
            assertThat(Files.readString(dir.resolve("w.html"))).contains("<html>").contains("const stacks=");
            // ...and start it again: the library is loaded once per JVM, not once per loader.
            IsolatedCommand.run(other, "start", "--event", "cpu");
            assertThat(IsolatedCommand.run(other, "status")).contains("Profiling is running");
        } finally {
            cmd.run(List.of("stop", "--format", "jfr", "--file", dir.resolve("last.jfr").toString()), new TestContext());
        }
        assertThat(Files.size(dir.resolve("last.jfr"))).isGreaterThan(0);
    }

    @Test
    void badInputIsOneLineAndChangesNothing() throws Exception {
        assertThatThrownBy(() -> cmd.run(List.of("start", "--event", "cycles"), new TestContext()))
                .isInstanceOf(CommandException.class).hasMessageContaining("unknown event 'cycles'");
        assertThatThrownBy(() -> cmd.run(List.of("start", "--interval", "fast"), new TestContext()))
                .isInstanceOf(CommandException.class).hasMessageContaining("bad --interval");
        assertThatThrownBy(() -> cmd.run(List.of("stop"), new TestContext()))
                .isInstanceOf(CommandException.class).hasMessageContaining("not running");
        TestContext status = new TestContext();
        cmd.run(List.of("status"), status);
        assertThat(status.text()).isEqualTo("profiler not running");
    }
}
