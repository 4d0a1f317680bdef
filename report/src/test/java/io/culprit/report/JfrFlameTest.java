package io.culprit.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A case with a JFR recording and no collapsed stacks still gets its flame graphs, via jfr-converter. */
class JfrFlameTest {
    static volatile double sink;

    @Test
    void cpuFlameFromARecordingNamesTheBusyMethod(@TempDir Path tmp) throws Exception {
        CaseFile cf = TestCases.copy("healthy", tmp);
        long[] window = record(cf);
        cf.write(CaseInfo.of("analyze", window[0], window[1], "test", Map.of()));
        Report report = ReportBuilder.build(cf, List.of());

        Report.Flame cpu = report.flames().stream().filter(f -> f.kind().equals("cpu")).findFirst().orElseThrow();
        assertThat(cpu.file()).isEqualTo("profiles/recording.jfr (cpu)");
        assertThat(cpu.samples()).isGreaterThan(10);
        List<String> names = new ArrayList<>();
        collect(cpu.root(), names);
        // The frame-type suffixes async-profiler's converter appends (_[j], _[i]) are gone.
        assertThat(names).anyMatch(n -> n.endsWith("JfrFlameTest.spin")).noneMatch(n -> n.endsWith("]"));
    }

    @Test
    void onlyTheCasesWindowIsDrawn(@TempDir Path tmp) throws Exception {
        CaseFile cf = TestCases.copy("healthy", tmp);
        long[] window = record(cf);
        // A case observed before the recording (diagnose's recording also spans its warm-up): none of it is drawn.
        cf.write(CaseInfo.of("diagnose", window[0] - 60_000, window[0] - 30_000, "test", Map.of()));
        assertThat(ReportBuilder.build(cf, List.of()).flames()).noneMatch(f -> f.kind().equals("cpu"));
    }

    /** Records 800 ms of spinning into the case's profiles; returns the recording's span (epoch ms). */
    private static long[] record(CaseFile cf) throws Exception {
        try (Recording r = new Recording()) {
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            long start = System.currentTimeMillis();
            r.start();
            spin(800);
            r.stop();
            long end = System.currentTimeMillis();
            r.dump(cf.profile("recording.jfr"));
            return new long[] {start, end};
        }
    }

    // Real CPU work for the sampler to see; the measured time bounds it, not a sleep.
    private static void spin(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        double x = 0;
        while (System.nanoTime() < end) for (int i = 0; i < 10_000; i++) x += Math.sqrt(i);
        sink = x;
    }

    private static void collect(Report.FlameNode n, List<String> out) {
        out.add(n.name());
        for (Report.FlameNode c : n.children()) collect(c, out);
    }
}
