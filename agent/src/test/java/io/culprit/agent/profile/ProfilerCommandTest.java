package io.culprit.agent.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.agent.command.CommandException;
import io.culprit.jfr.JfrEvidence;
import io.culprit.jfr.JfrFiles;
import io.culprit.jfr.collect.Observation;
import io.culprit.model.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** async-profiler in this JVM through the command, as the agent runs it. */
class ProfilerCommandTest {
    final ProfilerCommand cmd = new ProfilerCommand();

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
            b.burnFor(2000); // the profiling window, in the burner's CPU
            cmd.run(List.of("stop", "--format", "collapsed", "--file", out.toString()), stop);
        }
        assertThat(expected).isIn("perf_events", "ctimer");
        assertThat(start.text()).contains("engine " + expected);

        Map<?, ?> data = (Map<?, ?>) stop.data.get(0);
        // The engine comes from the recording itself and agrees with the prediction at start.
        assertThat(data.get("engine")).isEqualTo(expected);
        assertThat(stop.text()).contains("engine " + expected).contains(out.toString());

        Map<String, Long> collapsed = new HashMap<>();
        for (String line : Files.readAllLines(out)) {
            int sp = line.lastIndexOf(' ');
            collapsed.merge(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)), Long::sum);
        }
        assertBurnerIsHottest(collapsed);
        assertThat(stop.text()).contains("hottest frames").contains(BURNER);
    }

    /**
     * Diagnose records without JFR's sampler and fills the hotspot and jit tables from the
     * profiler's samples: they read as JFR's would (class names with dots, the JVM's own threads
     * and the C++ and native frames above a Java method left out), and they are refused once JFR's
     * own samples are in, as another recording in the JVM can turn JFR's sampler back on.
     */
    @Test
    void ctimerSamplesFeedTheHotspotTablesAndGiveWayToJfrsOwn(@TempDir Path dir) throws Exception {
        Path raw = dir.resolve("cpu.jfr");
        Path jfrOwn = dir.resolve("jfr.jfr");
        long from;
        long to;
        try (CpuBurner b = new CpuBurner(); Recording r = new Recording()) {
            Thread.sleep(500); // warm-up: the JIT compiles the burner before the profile starts
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            from = System.currentTimeMillis();
            r.start();
            cmd.run(List.of("start", "--event", "ctimer", "--interval", "5ms"), new TestContext());
            b.burnFor(1500); // the profiling window, in the burner's CPU
            cmd.run(List.of("stop", "--format", "collapsed", "--file", dir.resolve("cpu.collapsed").toString(), "--jfr", raw.toString()),
                    new TestContext());
            r.stop();
            to = System.currentTimeMillis();
            r.dump(jfrOwn);
        }
        Observation window = new Observation(from, to, 0);
        JfrEvidence ev = new JfrEvidence();
        long added = JfrFiles.addProfilerSamples(raw, window, ev);
        assertThat(added).isGreaterThan(100);
        Table hot = ev.tables(window).get("cpu-hotspots");
        assertThat(hot.meta()).containsEntry("sampler", "async-profiler").containsEntry("samples", added);
        assertThat(hot.rows().get(0).get("frame")).isEqualTo(BURNER);
        assertThat(hot.rows()).allSatisfy(row -> assertThat((String) row.get("frame")).doesNotContain("/", "::", ".so"));
        assertThat(ev.tables(window).get("jit").meta()).containsEntry("samples", added);
        // culprit analyze given the profiler's own recording reads its samples alike.
        Table analyzed = JfrFiles.read(raw, window).tables(window).get("cpu-hotspots");
        assertThat(analyzed.meta()).containsEntry("samples", added);
        assertThat(analyzed.rows().get(0).get("frame")).isEqualTo(BURNER);
        assertThat(analyzed.rows()).allSatisfy(row -> assertThat((String) row.get("frame")).doesNotContain("/", "::", ".so"));

        JfrEvidence both = JfrFiles.read(jfrOwn, window);
        long jfrSamples = (Long) both.tables(window).get("cpu-hotspots").meta().get("samples");
        assertThat(jfrSamples).isPositive();
        assertThat(JfrFiles.addProfilerSamples(raw, window, both)).isZero();
        assertThat(both.tables(window).get("cpu-hotspots").meta()).containsEntry("samples", jfrSamples).containsEntry("sampler", "jfr");
    }

    /** The timer engines asked for by name: the recording says they ran, and they see the burner. */
    @Test
    void ctimerAndItimerSampleCpuAndSayTheyRan(@TempDir Path dir) throws Exception {
        try (CpuBurner b = new CpuBurner()) {
            Thread.sleep(500); // warm-up: the JIT compiles the burner before the profile starts
            for (String engine : List.of("ctimer", "itimer")) {
                Path out = dir.resolve(engine + ".collapsed");
                TestContext start = new TestContext();
                TestContext stop = new TestContext();
                cmd.run(List.of("start", "--event", engine, "--interval", "5ms"), start);
                assertThat(start.text()).contains("event " + engine + ", interval 5ms");
                b.burnFor(1500); // the profiling window, in the burner's CPU
                cmd.run(List.of("stop", "--format", "collapsed", "--file", out.toString()), stop);
                assertThat(((Map<?, ?>) stop.data.get(0)).get("engine")).as(stop.text()).isEqualTo(engine);
                Map<String, Long> collapsed = new HashMap<>();
                for (String line : Files.readAllLines(out)) {
                    int sp = line.lastIndexOf(' ');
                    collapsed.merge(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)), Long::sum);
                }
                assertBurnerIsHottest(collapsed);
            }
        }
    }

    @Test
    void pprofIsGzippedProtobufThatPprofReadersSeeTheBurnerIn(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("cpu.pb.gz");
        TestContext stop = new TestContext();
        try (CpuBurner b = new CpuBurner()) {
            Thread.sleep(500); // warm-up, as above
            cmd.run(List.of("start", "--event", "cpu", "--interval", "5ms"), new TestContext());
            b.burnFor(1500);
            cmd.run(List.of("stop", "--format", "pprof", "--file", out.toString()), stop);
        }
        assertThat(stop.text()).contains("pprof written to " + out);
        PprofProfile pprof = PprofProfile.read(out);
        assertThat(pprof.sampleType).isEqualTo("cpu/count");
        // The same samples as the command's own reading of the recording (which skips stackless ones).
        long reported = ((Number) ((Map<?, ?>) stop.data.get(0)).get("samples")).longValue();
        assertThat(pprof.total).isGreaterThanOrEqualTo(reported).isLessThanOrEqualTo(reported + reported / 50 + 1);
        assertBurnerIsHottest(pprof.collapsed);
    }

    @Test
    void wallSamplesOfIdleThreadsCountAsOftenAsAsyncProfilersConverterCountsThem(@TempDir Path dir) throws Exception {
        // async-profiler batches an idle thread's unchanged wall samples into one event with a count:
        // the command's own totals (text, html, collapsed) must weigh them as its converter does.
        Path out = dir.resolve("wall.pb.gz");
        TestContext stop = new TestContext();
        Thread sleeper = new Thread(ProfilerCommandTest::sleepInAKnownMethod, "sleeper");
        sleeper.setDaemon(true);
        sleeper.start();
        try {
            cmd.run(List.of("start", "--event", "wall", "--interval", "20ms"), new TestContext());
            Thread.sleep(1000);
            cmd.run(List.of("stop", "--format", "pprof", "--file", out.toString()), stop);
        } finally {
            sleeper.interrupt();
        }
        PprofProfile pprof = PprofProfile.read(out);
        long reported = ((Number) ((Map<?, ?>) stop.data.get(0)).get("samples")).longValue();
        assertThat(pprof.total).isGreaterThanOrEqualTo(reported).isLessThanOrEqualTo(reported + reported / 50 + 1);
        assertThat(pprof.collapsed.keySet()).anyMatch(s -> s.contains("ProfilerCommandTest.sleepInAKnownMethod"));
    }

    private static void sleepInAKnownMethod() {
        try {
            Thread.sleep(60_000);
        } catch (InterruptedException done) {
            // the test is over
        }
    }

    private static final String BURNER = CpuBurner.class.getName() + ".burnCpu";

    /**
     * The widest frame that does work itself: most samples on top of the stack, and a third or more of all
     * samples under it (JIT, GC and test threads share the process's CPU on a busy machine).
     */
    private static void assertBurnerIsHottest(Map<String, Long> collapsed) {
        Map<String, Long> total = new HashMap<>();
        Map<String, Long> self = new HashMap<>();
        long samples = 0;
        for (Map.Entry<String, Long> e : collapsed.entrySet()) {
            String[] frames = e.getKey().split(";");
            long n = e.getValue();
            samples += n;
            self.merge(frames[frames.length - 1], n, Long::sum);
            for (String f : new HashSet<>(List.of(frames))) total.merge(f, n, Long::sum);
        }
        assertThat(total.getOrDefault(BURNER, 0L)).as("burner share of %s samples", samples).isGreaterThan(samples / 3);
        String hottest = self.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        assertThat(hottest).isEqualTo(BURNER);
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

    /**
     * --lock beside a CPU profile: the raw recording holds parks on the contended ReentrantLock and
     * none of an idle pool worker's waits for work (a condition), which JFR's park event records
     * alike; the CPU flame graph stays CPU samples only.
     */
    @Test
    void lockTracerBesideCpuKeepsLockParksAndLeavesIdleWorkersOut(@TempDir Path dir) throws Exception {
        ReentrantLock lock = new ReentrantLock();
        ExecutorService idle = Executors.newFixedThreadPool(1);
        AtomicBoolean run = new AtomicBoolean(true);
        List<Thread> contenders = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(() -> {
                while (run.get()) {
                    lock.lock();
                    try {
                        LockSupport.parkNanos(2_000_000); // hold it 2 ms
                    } finally {
                        lock.unlock();
                    }
                }
            }, "contender-" + i);
            t.setDaemon(true);
            t.start();
            contenders.add(t);
        }
        Path raw = dir.resolve("raw.jfr");
        Path out = dir.resolve("cpu.collapsed");
        TestContext stop = new TestContext();
        try (CpuBurner b = new CpuBurner()) {
            idle.submit(() -> { }).get(); // the worker now waits for its next task on the queue's condition
            cmd.run(List.of("start", "--event", "ctimer", "--interval", "10ms", "--lock", "1ms"), new TestContext());
            for (int i = 0; i < 20; i++) {
                Thread.sleep(50);
                idle.submit(() -> { }).get(); // 50 ms waits for work: longer than the lock's threshold
            }
            cmd.run(List.of("stop", "--format", "collapsed", "--file", out.toString(), "--jfr", raw.toString()), stop);
        } finally {
            run.set(false);
            idle.shutdownNow();
            for (Thread t : contenders) t.join(1000);
        }
        Map<String, Long> parks = new HashMap<>();
        long cpuSamples = 0;
        try (RecordingFile f = new RecordingFile(raw)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                String type = e.getEventType().getName();
                if (type.equals("jdk.ThreadPark")) parks.merge(e.getClass("parkedClass").getName(), 1L, Long::sum);
                if (type.equals("jdk.ExecutionSample")) cpuSamples++;
            }
        }
        assertThat(parks).as("parks by class").containsKey("java.util.concurrent.locks.ReentrantLock$NonfairSync");
        assertThat(parks.keySet()).as("parks by class").noneMatch(c -> c.contains("ConditionObject"));
        long collapsed = Files.readAllLines(out).stream().mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum();
        assertThat(collapsed).as("the flame graph counts CPU samples, not lock events").isLessThanOrEqualTo(cpuSamples).isGreaterThan(0);
    }

    @Test
    void badInputIsOneLineAndChangesNothing() throws Exception {
        assertThatThrownBy(() -> cmd.run(List.of("start", "--event", "lock", "--lock", "1ms"), new TestContext()))
                .isInstanceOf(CommandException.class).hasMessageContaining("--lock goes with a sampled event");
        assertThatThrownBy(() -> cmd.run(List.of("start", "--event", "ctimer", "--lock", "soon"), new TestContext()))
                .isInstanceOf(CommandException.class).hasMessageContaining("bad --lock 'soon'");
        assertThatThrownBy(() -> cmd.run(List.of("start", "--event", "cycles"), new TestContext()))
                .isInstanceOf(CommandException.class).hasMessageContaining("unknown event 'cycles'");
        assertThatThrownBy(() -> cmd.run(List.of("start", "--interval", "fast"), new TestContext()))
                .isInstanceOf(CommandException.class).hasMessageContaining("bad --interval");
        assertThatThrownBy(() -> cmd.run(List.of("stop", "--format", "svg"), new TestContext()))
                .isInstanceOf(CommandException.class).hasMessageContaining("unknown format 'svg', expected html, collapsed, jfr or pprof");
        assertThatThrownBy(() -> cmd.run(List.of("stop"), new TestContext()))
                .isInstanceOf(CommandException.class).hasMessageContaining("not running");
        TestContext status = new TestContext();
        cmd.run(List.of("status"), status);
        assertThat(status.text()).isEqualTo("profiler not running");
    }
}
