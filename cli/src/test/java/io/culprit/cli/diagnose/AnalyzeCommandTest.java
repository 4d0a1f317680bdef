package io.culprit.cli.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.cli.Culprit;
import io.culprit.jfr.CulpritSettings;
import io.culprit.model.CaseFile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code culprit analyze} on recordings made here: JDK default settings and culprit's own. */
class AnalyzeCommandTest {
    static volatile Object sink;

    @Test
    void defaultSettingsRecordingGivesGcEvidenceAndACaseFile(@TempDir Path dir) throws Exception {
        Path jfr = record(Configuration.getConfiguration("default"), dir.resolve("plain.jfr"));
        String[] out = new String[2];
        int code = run(out, "analyze", jfr.toString(), "--case", dir.resolve("case").toString());
        assertThat(code).as(out[1]).isZero();
        assertThat(out[0]).contains("== GC ==").containsPattern("pauses: [1-9]\\d* in").contains("heap: G1")
                .contains("== Exceptions").contains("case file: ");
        CaseFile cf = CaseFile.open(dir.resolve("case"));
        assertThat(cf.info().source()).isEqualTo("analyze");
        assertThat(cf.info().target()).containsKey("jdk");
        assertThat(cf.seriesNames()).contains("gc", "heap", "alloc");
        assertThat(cf.table("gc-collectors").orElseThrow().rows()).isNotEmpty();
        assertThat(cf.table("heap-config").orElseThrow().rows()).hasSize(1);
    }

    @Test
    void culpritRecordingShowsSwallowedExceptionsAndMisses(@TempDir Path dir) throws Exception {
        Path jfr = record(CulpritSettings.configuration(), dir.resolve("culprit.jfr"));
        String[] out = new String[2];
        assertThat(run(out, "analyze", jfr.toString(), "--flame", dir.resolve("f.html").toString(),
                "--pprof", dir.resolve("p.pb.gz").toString())).as(out[1]).isZero();
        assertThat(out[0]).contains("java.lang.ClassNotFoundException  at " + getClass().getName() + ".missing")
                .contains("class-miss no.such.Plugin  from " + getClass().getName() + ".missing");
        assertThat(dir.resolve("culprit.case").resolve("tables").resolve("exceptions.json")).exists();
        assertThat(Files.readString(dir.resolve("f.html"))).contains("<html");
        byte[] pprof = Files.readAllBytes(dir.resolve("p.pb.gz"));
        assertThat(pprof.length).isGreaterThan(2);
        assertThat(new int[] {pprof[0] & 0xff, pprof[1] & 0xff}).as("gzip, as go tool pprof reads").containsExactly(0x1f, 0x8b);
    }

    @Test
    void missingOrBrokenRecordingIsAOneLineError(@TempDir Path dir) throws Exception {
        String[] out = new String[2];
        assertThat(run(out, "analyze", dir.resolve("nope.jfr").toString())).isEqualTo(2);
        assertThat(out[1].trim()).isEqualTo("culprit analyze: no such recording: " + dir.resolve("nope.jfr")).doesNotContain("\n");
        Path junk = Files.writeString(dir.resolve("junk.jfr"), "not a recording");
        assertThat(run(out, "analyze", junk.toString())).isEqualTo(2);
        assertThat(out[1]).startsWith("culprit analyze: not a readable JFR recording");
    }

    @Test
    void aRecordingsCpuSamplesBecomeTheCaseProfileAndNameAHotMethod(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("busy.jfr");
        try (Recording r = new Recording(CulpritSettings.configuration())) {
            r.start();
            // ~250 execution samples at culprit's 20 ms of CPU, all in distinctTerms: CI's 2 busy CPUs
            // once gave 97 of the 150 that 3 s of CPU should, under the rules' 100.
            Thread busy = new Thread(() -> distinctTerms(5_000), "busy");
            busy.start();
            busy.join();
            r.stop();
            r.dump(jfr);
        }
        String[] out = new String[2];
        assertThat(run(out, "analyze", jfr.toString(), "--case", dir.resolve("case").toString())).as(out[1]).isZero();
        Path profile = dir.resolve("case").resolve("profiles").resolve("cpu.collapsed");
        assertThat(profile).exists();
        // the converter marks frame types (_[j] compiled, _[i] inlined), which the rules strip
        assertThat(Files.readString(profile)).containsPattern(java.util.regex.Pattern.quote(getClass().getName() + ".distinctTerms")
                + "(_\\[\\w\\])?;java\\.util\\.ArrayList\\.");
        assertThat(out[0]).containsPattern("events read, \\d+ CPU samples")
                .contains("cpu-hotspot — One application method burns the CPU")
                .contains(getClass().getName() + ".distinctTerms computes in");
    }

    /**
     * A quadratic deduplication that runs until it has used {@code cpuMs} of CPU (JFR samples a
     * thread only while it runs, so a loaded machine stretches the wall time, not the sample
     * count), or for ten times that in wall time if the thread's CPU time cannot be read.
     */
    static int distinctTerms(long cpuMs) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuEnd = threads.getCurrentThreadCpuTime() + cpuMs * 1_000_000;
        long wallEnd = System.currentTimeMillis() + 10 * cpuMs;
        java.util.List<String> kept = new java.util.ArrayList<>();
        int i = 0;
        while (System.currentTimeMillis() < wallEnd && (i % 256 != 0 || threads.getCurrentThreadCpuTime() < cpuEnd)) {
            String term = "term-" + (i++ % 4_000);
            if (!kept.contains(term)) kept.add(term);
        }
        return kept.size();
    }

    private static Path record(Configuration c, Path out) throws Exception {
        try (Recording r = new Recording(c)) {
            r.start();
            long end = System.currentTimeMillis() + 1500;
            while (System.currentTimeMillis() < end) {
                for (int i = 0; i < 2048; i++) sink = new byte[1000];
                missing();
                System.gc(); // guarantees collections even with a large default heap
                Thread.sleep(50);
            }
            r.stop();
            r.dump(out);
        }
        return out;
    }

    static void missing() {
        try {
            Class.forName("no.such.Plugin");
        } catch (ClassNotFoundException swallowed) {
            // recorded by culprit's settings, invisible with the JDK's defaults
        }
    }

    private static int run(String[] out, String... args) {
        StringWriter o = new StringWriter(), e = new StringWriter();
        CommandLine cl = Culprit.commandLine();
        cl.setOut(new PrintWriter(o));
        cl.setErr(new PrintWriter(e));
        int code = cl.execute(args);
        out[0] = o.toString();
        out[1] = e.toString();
        return code;
    }
}
