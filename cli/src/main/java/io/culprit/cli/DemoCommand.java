package io.culprit.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.culprit.cli.diagnose.LiveDiagnosis;
import io.culprit.cli.lab.GroundTruth;
import io.culprit.cli.lab.LabJar;
import io.culprit.cli.lab.LabProcess;
import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.VerdictRenderer;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.report.CaseDiff;
import io.culprit.report.DiffRenderer;
import io.culprit.report.HtmlReport;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The newcomer's first command: starts a lab scenario on the embedded database, diagnoses it
 * live under bounded load on 127.0.0.1, prints the verdict next to the scenario's ground truth,
 * and stops the lab.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Starts a lab scenario on the embedded database, diagnoses it under load, prints the verdict.",
        footer = {"", "Examples:",
                "  culprit demo                       # converter-rebuild",
                "  culprit demo gc-pool-starvation",
                "  culprit demo gc-pool-starvation --fixed   # the twin with the cause removed",
                "  culprit demo timer-lock --twins    # the fault, then its fix, and the diff",
                "  culprit lab --list                 # every scenario"})
public final class DemoCommand implements Callable<Integer> {

    @Parameters(index = "0", defaultValue = "converter-rebuild", description = "lab scenario (default: ${DEFAULT-VALUE})")
    String scenario;

    @Option(names = "--fixed", description = "run the scenario's fixed twin")
    boolean fixed;

    @Option(names = "--duration", defaultValue = "20", description = "measured seconds of load (default: ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--warmup", defaultValue = "5", description = "unrecorded seconds of load before measuring (default: ${DEFAULT-VALUE})")
    int warmupSeconds;

    @Option(names = "--rate", description = "override the scenario's load: open model, requests per second")
    Double rate;

    @Option(names = "--no-probes", description = "diagnose without the framework probes (JFR and the cpu profiler only)")
    boolean noProbes;

    @Option(names = "--connections", description = "override the scenario's load: closed model, concurrent connections")
    Integer connections;

    @Option(names = "--twins", description = "run the scenario, then its fixed twin (on the same lab when their JVM flags match), and diff the two")
    boolean twins;

    @Override
    public Integer call() throws Exception {
        try {
            LabJar.locate().scenario(scenario);  // a bad name is one line, before anything starts
            if (seconds <= 0) throw new IllegalArgumentException("--duration must be at least 1 second, not " + seconds);
            if (warmupSeconds < 0) throw new IllegalArgumentException("--warmup must not be negative, not " + warmupSeconds);
            if (twins && fixed) throw new IllegalArgumentException("--twins runs both twins: drop --fixed");
        } catch (IllegalArgumentException e) {
            System.err.println("culprit demo: " + e.getMessage());
            return 2;
        }
        List<Boolean> runs = twins ? List.of(false, true) : List.of(fixed);
        List<Run> done = new ArrayList<>();
        LabProcess lab = null;
        try {
            for (boolean f : runs) {
                if (lab != null && lab.fixed() != f && lab.canSwitch()) {
                    System.err.println("culprit demo: switching the lab to the " + (f ? "fixed" : "faulty") + " twin");
                    lab.switchTo(f);
                } else if (lab == null || lab.fixed() != f) {
                    if (lab != null) stop(lab, done.get(done.size() - 1).cf.dir());
                    lab = start(f);
                }
                done.add(diagnose(lab));
            }
        } finally {
            if (lab != null) stop(lab, done.isEmpty() ? null : done.get(done.size() - 1).cf.dir());
        }
        if (twins) {
            Run before = done.get(0), after = done.get(1);
            System.out.println();
            System.out.print(DiffRenderer.text(CaseDiff.of(before.cf, before.result.findings(), after.cf, after.result.findings())));
        }
        return 0;
    }

    /** One diagnosis and what it wrote. */
    private record Run(CaseFile cf, Diagnosis.Result result) {
    }

    private LabProcess start(boolean fixedTwin) {
        System.err.println("culprit demo: starting lab scenario '" + scenario + "'" + (fixedTwin ? " (fixed)" : "") + " on the embedded database");
        long t0 = System.nanoTime();
        LabProcess lab = LabProcess.start(scenario, fixedTwin, "h2", 0);
        System.err.printf("culprit demo: lab up in %.1f s, pid %d, %s%n", (System.nanoTime() - t0) / 1e9, lab.pid(), lab.baseUrl());
        return lab;
    }

    private Run diagnose(LabProcess lab) throws Exception {
        GroundTruth truth = lab.scenario();
        boolean fixedTwin = lab.fixed();
        CaseFile cf = new LiveDiagnosis(System.err).run(plan(lab, truth));
        Diagnosis.Result result = Diagnosis.runAndWrite(cf);
        if (twins) System.out.println("== " + truth.name() + (fixedTwin ? " (fixed twin)" : "") + " ==");
        System.out.print(VerdictRenderer.render(result));
        System.out.println();
        System.out.println("Ground truth (" + truth.name() + (fixedTwin ? ", fixed twin" : "") + "): " + truth.title());
        if (!fixedTwin) System.out.println("  seeded cause: " + truth.json().path("rootCause").path("summary").asText());
        System.out.println("Verdict: " + result.top().map(Finding::id).orElse("no problem found"));
        System.out.println("Case file: " + cf.dir());
        System.out.println("Report:    " + HtmlReport.write(cf));
        return new Run(cf, result);
    }

    /** Stops the lab and keeps its output with the last case it served (none when a start failed). */
    private static void stop(LabProcess lab, Path caseDir) {
        Path labLog = lab.log();
        lab.close();
        if (caseDir != null) keepWithCase(labLog, caseDir);
    }

    /**
     * The lab's output, complete once it has exited, goes beside the evidence ({@code lab.log})
     * instead of staying in the temp directory, one file per demo. A failed demo leaves it where
     * the error message said.
     */
    private static void keepWithCase(Path labLog, Path caseDir) {
        if (labLog == null) return;
        try {
            Files.move(labLog, caseDir.resolve("lab.log"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            System.err.println("culprit demo: the lab's output stays in " + labLog + " (" + e.getMessage() + ")");
        }
    }

    private LiveDiagnosis.Plan plan(LabProcess lab, GroundTruth truth) {
        boolean fixed = lab.fixed();
        JsonNode load = truth.json().path("load");
        LiveDiagnosis.Plan p = new LiveDiagnosis.Plan();
        p.pid = lab.pid();
        p.url = URI.create(lab.baseUrl() + truth.path());
        p.method = truth.method();
        if (truth.body() != null) p.body = truth.body().getBytes(StandardCharsets.UTF_8);
        String type = truth.json().path("endpoint").path("contentType").asText("");
        if (!type.isEmpty()) p.headers = Map.of("Content-Type", type);
        // The ground truth says how the fault shows: an arrival rate, or a number of users.
        if (rate != null) p.rate = rate;
        else if (connections != null) p.connections = connections;
        else if ("open".equals(load.path("model").asText())) p.rate = load.path("rate").asDouble(50);
        else if ("idle-gaps".equals(load.path("model").asText())) {
            p.idleGap = Duration.ofSeconds(load.path("idleGapSeconds").asLong(6));
            p.burst = load.path("requestsPerBurst").asInt(3);
        }
        else p.connections = load.path("concurrency").asInt(load.path("concurrencyLevels").path(1).asInt(4));
        p.duration = Duration.ofSeconds(seconds);
        p.warmup = Duration.ofSeconds(warmupSeconds);
        p.probes = !noProbes;
        p.caseDir = Path.of("culprit-cases", "demo-" + scenario + (fixed ? "-fixed" : "") + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        p.commandLine = "culprit demo " + scenario + (fixed ? " --fixed" : "");
        return p;
    }
}
