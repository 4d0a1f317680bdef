package io.culprit.cli.diagnose;

import io.culprit.jfr.EvidenceText;
import io.culprit.jfr.JfrEvidence;
import io.culprit.jfr.JfrFiles;
import io.culprit.jfr.collect.Observation;
import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.VerdictRenderer;
import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import one.convert.Arguments;
import one.convert.JfrToFlame;
import one.convert.JfrToPprof;
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
@Command(name = "analyze", description = "Reads a JFR recording into the same evidence and rules as diagnose.",
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
        cf.write(CaseInfo.of("analyze", o.startMs(), o.endMs(), "culprit analyze " + recording, ev.target()));
        ev.writeTo(cf, o);

        Map<String, Series> series = new LinkedHashMap<>();
        ev.series(o).forEach(s -> series.put(s.name(), s));
        Map<String, Table> tables = ev.tables(o);
        var out = spec.commandLine().getOut();
        out.printf("%s: %.1f s recorded, %d events read%n%n", recording, o.seconds(), ev.events());
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
}
