package io.culprit.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A case with a JFR recording and no collapsed stacks still gets its flame graphs, via jfr-converter. */
class JfrFlameTest {
    static volatile double sink;

    @Test
    void cpuFlameFromARecordingNamesTheBusyMethod(@TempDir Path tmp) throws Exception {
        CaseFile cf = TestCases.copy("healthy", tmp);
        try (Recording r = new Recording()) {
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            r.start();
            spin(800);
            r.stop();
            r.dump(cf.profile("recording.jfr"));
        }
        Report report = ReportBuilder.build(cf, List.of());

        Report.Flame cpu = report.flames().stream().filter(f -> f.kind().equals("cpu")).findFirst().orElseThrow();
        assertThat(cpu.file()).isEqualTo("profiles/recording.jfr (cpu)");
        assertThat(cpu.samples()).isGreaterThan(10);
        List<String> names = new ArrayList<>();
        collect(cpu.root(), names);
        // The frame-type suffixes async-profiler's converter appends (_[j], _[i]) are gone.
        assertThat(names).anyMatch(n -> n.endsWith("JfrFlameTest.spin")).noneMatch(n -> n.endsWith("]"));
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
