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

    @Override
    public Integer call() throws Exception {
        try {
            LabJar.locate().scenario(scenario);  // a bad name is one line, before anything starts
            if (seconds <= 0) throw new IllegalArgumentException("--duration must be at least 1 second, not " + seconds);
            if (warmupSeconds < 0) throw new IllegalArgumentException("--warmup must not be negative, not " + warmupSeconds);
        } catch (IllegalArgumentException e) {
            System.err.println("culprit demo: " + e.getMessage());
            return 2;
        }
        System.err.println("culprit demo: starting lab scenario '" + scenario + "'" + (fixed ? " (fixed)" : "") + " on the embedded database");
        long t0 = System.nanoTime();
        CaseFile cf;
        Path labLog;
        try (LabProcess lab = LabProcess.start(scenario, fixed, "h2", 0)) {
            labLog = lab.log();
            GroundTruth truth = lab.scenario();
            System.err.printf("culprit demo: lab up in %.1f s, pid %d, %s%n", (System.nanoTime() - t0) / 1e9, lab.pid(), lab.baseUrl());
            LiveDiagnosis.Plan plan = plan(lab, truth);
            cf = new LiveDiagnosis(System.err).run(plan);
            Diagnosis.Result result = Diagnosis.runAndWrite(cf);
            System.out.print(VerdictRenderer.render(result));
            System.out.println();
            System.out.println("Ground truth (" + truth.name() + (fixed ? ", fixed twin" : "") + "): " + truth.title());
            if (!fixed) System.out.println("  seeded cause: " + truth.json().path("rootCause").path("summary").asText());
            System.out.println("Verdict: " + result.top().map(Finding::id).orElse("no problem found"));
            System.out.println("Case file: " + cf.dir());
            System.out.println("Report:    " + HtmlReport.write(cf));
        }
        keepWithCase(labLog, cf.dir());
        return 0;
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
