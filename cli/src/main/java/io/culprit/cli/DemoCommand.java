package io.culprit.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.culprit.cli.agent.AgentClient;
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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The newcomer's first command: starts a lab scenario on the embedded database, diagnoses it
 * live under bounded load on 127.0.0.1, prints the verdict next to the scenario's ground truth,
 * and stops the lab. Several scenarios (or {@code --all}) run back to back, on one lab process
 * wherever their JVM flags allow a switch, and end with a {@link DemoScorecard}.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Starts a lab scenario on the embedded database, diagnoses it under load, prints the verdict.",
        footer = {"", "Examples:",
                "  culprit demo                       # converter-rebuild",
                "  culprit demo gc-pool-starvation",
                "  culprit demo gc-pool-starvation --fixed   # the twin with the cause removed",
                "  culprit demo timer-lock --twins    # the fault, then its fix, and the diff",
                "  culprit demo --all --twins         # every scenario and its fix, then a scorecard",
                "  culprit lab --list                 # every scenario"})
public final class DemoCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", paramLabel = "SCENARIO", defaultValue = "converter-rebuild",
            description = "lab scenarios, run in this order (default: ${DEFAULT-VALUE})")
    List<String> scenarios;

    @Option(names = "--all", description = "every lab scenario (healthy first, those sharing its JVM flags on its lab, leaks last), then a scorecard")
    boolean all;

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

    /**
     * The lab whose JVM holds an agent this demo attached for all of that lab's runs, or null. A run
     * of several diagnoses keeps one agent per lab, as a user running diagnose after diagnose on a
     * service with {@code culprit attach} would: each attach loaded some 2,500 classes of culprit's
     * into the lab (about a second of CPU, and garbage that a later remark pause unloads), and
     * each detach threw them away again. Each diagnose still weaves, records and unweaves afresh.
     */
    private LabProcess attached;

    @Override
    public Integer call() throws Exception {
        List<GroundTruth> truths;
        try {
            truths = scenarios();  // a bad name is one line, before anything starts
            if (seconds <= 0) throw new IllegalArgumentException("--duration must be at least 1 second, not " + seconds);
            if (warmupSeconds < 0) throw new IllegalArgumentException("--warmup must not be negative, not " + warmupSeconds);
            if (twins && fixed) throw new IllegalArgumentException("--twins runs both twins: drop --fixed");
        } catch (IllegalArgumentException e) {
            System.err.println("culprit demo: " + e.getMessage());
            return 2;
        }
        boolean headed = twins || truths.size() > 1;
        List<Run> done = new ArrayList<>();
        LabProcess lab = null;
        try {
            for (GroundTruth truth : truths) {
                Run faulty = null;
                for (boolean f : twinsOf(truth)) {
                    lab = labFor(lab, truth, f, done);
                    Run run = diagnose(lab, headed);
                    done.add(run);
                    if (faulty == null) faulty = run;
                    else diff(faulty, run);
                }
            }
        } finally {
            if (lab != null) stop(lab, done.isEmpty() ? null : done.get(done.size() - 1).cf.dir());
        }
        if (truths.size() > 1) System.out.print(DemoScorecard.render(done));
        return 0;
    }

    /** The scenarios named, or every one with {@code --all}; each checked against the lab's index. */
    private List<GroundTruth> scenarios() {
        LabJar jar = LabJar.locate();
        if (all && !List.of("converter-rebuild").equals(scenarios)) {
            throw new IllegalArgumentException("--all runs every scenario: drop the names");
        }
        List<GroundTruth> out = new ArrayList<>();
        for (String name : all ? jar.scenarioNames() : scenarios) out.add(jar.scenario(name));
        // First every scenario whose twins run with the first one's JVM flags, all on one lab; then
        // those needing other flags (gc-pool-starvation's heap sizes); a leak last, on labs of its
        // own (LabProcess.canServe).
        if (all) {
            List<String> shared = out.get(0).jvmArgs(false);
            out.sort(Comparator.comparingInt(t -> LabProcess.leaks(t) ? 2
                    : t.jvmArgs(false).equals(shared) && t.jvmArgs(true).equals(shared) ? 0 : 1));
        }
        return out;
    }

    /** The twins to run: healthy has no fault, so no fixed twin to compare with. */
    private List<Boolean> twinsOf(GroundTruth truth) {
        if (!twins) return List.of(fixed);
        return "none".equals(truth.category()) ? List.of(false) : List.of(false, true);
    }

    /** The running lab, switched to this twin when it can serve it (as a redeploy), else a new one. */
    private LabProcess labFor(LabProcess lab, GroundTruth truth, boolean fixedTwin, List<Run> done) {
        if (lab != null && lab.scenario().equals(truth) && lab.fixed() == fixedTwin) return lab;
        if (lab != null && lab.canServe(truth, fixedTwin)) {
            System.err.println("culprit demo: switching the lab to " + truth.name() + (fixedTwin ? " (fixed twin)" : ""));
            lab.switchTo(truth, fixedTwin);
            return lab;
        }
        if (lab != null) stop(lab, done.get(done.size() - 1).cf.dir());
        return start(truth.name(), fixedTwin);
    }

    private static void diff(Run before, Run after) {
        System.out.println();
        System.out.print(DiffRenderer.text(CaseDiff.of(before.cf, before.result.findings(), after.cf, after.result.findings())));
    }

    /** One diagnosis, of which scenario and twin, and what it wrote. */
    record Run(GroundTruth truth, boolean fixed, CaseFile cf, Diagnosis.Result result) {
    }

    private static LabProcess start(String scenario, boolean fixedTwin) {
        System.err.println("culprit demo: starting lab scenario '" + scenario + "'" + (fixedTwin ? " (fixed)" : "") + " on the embedded database");
        long t0 = System.nanoTime();
        LabProcess lab = LabProcess.start(scenario, fixedTwin, "h2", 0);
        System.err.printf("culprit demo: lab up in %.1f s, pid %d, %s%n", (System.nanoTime() - t0) / 1e9, lab.pid(), lab.baseUrl());
        return lab;
    }

    private Run diagnose(LabProcess lab, boolean headed) throws Exception {
        GroundTruth truth = lab.scenario();
        boolean fixedTwin = lab.fixed();
        if (headed && attached != lab) {
            long t0 = System.nanoTime();
            AgentClient.connect(lab.pid());
            attached = lab;
            System.err.printf("culprit demo: agent attached in %d ms, kept for this lab's runs%n", (System.nanoTime() - t0) / 1_000_000);
        }
        CaseFile cf = new LiveDiagnosis(System.err).run(plan(lab, truth));
        Diagnosis.Result result = Diagnosis.runAndWrite(cf);
        if (headed) System.out.println("== " + truth.name() + (fixedTwin ? " (fixed twin)" : "") + " ==");
        System.out.print(VerdictRenderer.render(result));
        System.out.println();
        System.out.println("Ground truth (" + truth.name() + (fixedTwin ? ", fixed twin" : "") + "): " + truth.title());
        if (!fixedTwin) System.out.println("  seeded cause: " + truth.json().path("rootCause").path("summary").asText());
        System.out.println("Verdict: " + result.top().map(Finding::id).orElse("no problem found"));
        System.out.println("Case file: " + cf.dir());
        System.out.println("Report:    " + HtmlReport.write(cf));
        return new Run(truth, fixedTwin, cf, result);
    }

    /** Stops the lab and keeps its output with the last case it served (none when a start failed). */
    private void stop(LabProcess lab, Path caseDir) {
        if (attached == lab) {
            attached = null;
            int code = AgentClient.connect(lab.pid()).run("stop", true, 120, f -> { });
            System.err.println("culprit demo: " + (code == 0 ? "agent detached" : "the agent did not stop (exit code " + code + ")"));
        }
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
        p.caseDir = Path.of("culprit-cases", "demo-" + truth.name() + (fixed ? "-fixed" : "") + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        p.commandLine = "culprit demo " + truth.name() + (fixed ? " --fixed" : "");
        return p;
    }
}
