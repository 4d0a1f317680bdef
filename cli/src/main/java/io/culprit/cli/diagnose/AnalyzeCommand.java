package io.culprit.cli.diagnose;

import io.culprit.jfr.ApplicationPackages;
import io.culprit.jfr.EvidenceText;
import io.culprit.jfr.JfrEvidence;
import io.culprit.jfr.JfrFiles;
import io.culprit.jfr.collect.Observation;
import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.VerdictRenderer;
import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import one.convert.Arguments;
import one.convert.JfrToFlame;
import one.convert.JfrToPprof;
import one.jfr.JfrReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code culprit analyze recording.jfr}: the evidence of a JFR file a user already has, no live
 * JVM needed. Writes a case file (series and tables, the same catalogue as diagnose) and prints
 * the GC, exception, class-loading and lock evidence. Optionally converts the recording's samples
 * to a flame graph or pprof with async-profiler's converter (also for async-profiler's own .jfr).
 */
@Command(name = "analyze", mixinStandardHelpOptions = true, description = "Reads a JFR recording into the same evidence and rules as diagnose.",
        footer = {"", "Examples:", "  culprit analyze app.jfr", "  culprit analyze app.jfr --case /tmp/case --flame cpu.html",
                "  culprit analyze profile.jfr --pprof cpu.pb.gz"})
public final class AnalyzeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "RECORDING", description = "a .jfr file (JDK Flight Recorder or async-profiler)")
    Path recording;

    @Option(names = "--case", paramLabel = "DIR", description = "case file directory to write (default: <recording>.case beside it)")
    Path caseDir;

    @Option(names = "--flame", paramLabel = "FILE", description = "also write an HTML flame graph of the recording's samples")
    Path flame;

    @Option(names = "--pprof", paramLabel = "FILE", description = "also write the samples as pprof (gzipped protobuf)")
    Path pprof;

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(recording)) {
            spec.commandLine().getErr().println("culprit analyze: no such recording: " + recording);
            return 2;
        }
        JfrEvidence ev;
        try {
            ev = JfrFiles.read(recording);
        } catch (java.io.IOException e) {
            spec.commandLine().getErr().println("culprit analyze: " + e.getMessage());
            return 2;
        }
        if (ev.events() == 0) {
            spec.commandLine().getErr().println("culprit analyze: " + recording + " holds none of the events culprit reads");
            return 1;
        }
        Observation o = ev.observed(0);
        Path dir = caseDir != null ? caseDir : recording.resolveSibling(recording.getFileName().toString().replaceFirst("\\.jfr$", "") + ".case");
        CaseFile cf = CaseFile.create(dir);
        cf.write(CaseInfo.of("analyze", o.startMs(), o.endMs(), "culprit analyze " + recording, withAppPackages(ev.target())));
        ev.writeTo(cf, o);
        long cpuSamples = writeCpuProfile(recording, cf.profile("cpu.collapsed"));

        Map<String, Series> series = new LinkedHashMap<>();
        ev.series(o).forEach(s -> series.put(s.name(), s));
        Map<String, Table> tables = ev.tables(o);
        var out = spec.commandLine().getOut();
        out.printf("%s: %.1f s recorded, %d events read, %d CPU samples%n%n", recording, o.seconds(), ev.events(), cpuSamples);
        out.println(EvidenceText.gc(series, tables, o.seconds()));
        out.println(EvidenceText.exceptions(tables.get("exceptions")));
        out.println(EvidenceText.classLoading(tables.get("classloading")));
        out.println(EvidenceText.locks(tables.get("locks")));
        if (flame != null) {
            JfrToFlame.convert(recording.toString(), flame.toString(), new Arguments("--title", recording.getFileName().toString()));
            out.println("flame graph: " + flame);
        }
        if (pprof != null) {
            Arguments a = new Arguments();
            // The converter picks its writer from this field, not from the file name; "gz" gzips, as
            // go tool pprof expects and as the agent's "profiler stop --format pprof" writes.
            a.output = "pb.gz";
            a.dot = true;
            JfrToPprof.convert(recording.toString(), pprof.toString(), a);
            out.println("pprof: " + pprof);
        }
        // The same rules as diagnose, over the same case file: what a recording alone can show.
        out.println();
        out.print(VerdictRenderer.render(Diagnosis.runAndWrite(cf)));
        out.println();
        out.println("case file: " + dir.toAbsolutePath());
        out.flush();
        return 0;
    }

    /**
     * The target as recorded, with the application's packages as its command line tells them (the
     * agent reads them from the loaded classes, which a recording does not hold): without them the
     * rules count every library they do not list as the service's own code.
     */
    private static Map<String, String> withAppPackages(Map<String, String> target) {
        Map<String, String> t = new LinkedHashMap<>(target);
        List<String> packages = ApplicationPackages.ofCommand(t.get("mainClass"));
        if (!packages.isEmpty()) t.putIfAbsent("appPackages", String.join(",", packages));
        return t;
    }

    /**
     * The recording's CPU samples (JFR's execution samples, or async-profiler's) as the case's
     * collapsed profile, so the rules weigh whole stacks as they do after a live diagnose, not only
     * the hotspot table's top methods. Written only from {@link Evidence#MIN_HOTSPOT_SAMPLES} on:
     * a handful of samples would read as whole shares of CPU. Returns the samples found.
     */
    private static long writeCpuProfile(Path recording, Path file) throws IOException {
        Arguments args = new Arguments("-o", "collapsed");
        args.dot = true;  // java.lang.Thread.run, as async-profiler's own collapsed output names frames
        ByteArrayOutputStream collapsed = new ByteArrayOutputStream();
        try (JfrReader reader = new JfrReader(recording.toString())) {
            JfrToFlame converter = new JfrToFlame(reader, args);
            converter.convert();
            converter.dump(collapsed);
        }
        String text = collapsed.toString(StandardCharsets.UTF_8);
        long samples = CpuProfile.parse(text).map(CpuProfile::samples).orElse(0L);
        if (samples >= Evidence.MIN_HOTSPOT_SAMPLES) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        }
        return samples;
    }
}
