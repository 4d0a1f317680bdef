package io.culprit.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.culprit.model.HostReclaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 8's acceptance test, through the real CLI: {@code culprit demo --all --twins} runs every lab
 * scenario, diagnoses it live under the load its ground-truth file names, and must confirm the
 * ground truth's root cause as the #1 finding, naming one of its culprit classes or frames; the
 * fixed twin must not raise that finding as a problem; {@code healthy} must raise no WARN or
 * CRITICAL at all. The rule expected for each ground-truth category is the only knowledge this
 * test adds: the rules themselves know nothing of the lab. Then {@code culprit diff} of
 * converter-rebuild and its fixed twin, on the cases those runs wrote (issue 9).
 *
 * <p>One demo runs them all, as a user's {@code --all} would: the scenarios whose JVM flags match
 * share one lab process, switched from one to the next as a redeploy would (twelve lab starts
 * fewer than a demo each: 70-90 s of the suite); gc-pool-starvation's heap sizes and the leak get
 * labs of their own. Each test below reads its scenario's part of that output.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DiagnoseLabIT {
    /** The case each run wrote, by scenario and twin, for the diff. */
    private static final Map<String, Path> CASES = new ConcurrentHashMap<>();

    /** Ground-truth category (lab/src/main/resources/scenarios/*.json) → the rule that names it. */
    private static final Map<String, String> RULE_FOR_CATEGORY = Map.ofEntries(
            Map.entry("ttl-cache-jar-rescan", "idle-gap-latency"),
            Map.entry("gc-pressure-pool-starvation", "gc-pressure"),
            Map.entry("repeated-construction-classloading", "repeated-construction"),
            Map.entry("db-row-lock", "db-row-lock"),
            Map.entry("prototype-bean-creation", "prototype-beans"),
            Map.entry("lock-contention", "lock-contention"),
            Map.entry("exceptions-control-flow", "caught-exceptions"),
            Map.entry("logging-stack-traces", "logging-pressure"),
            Map.entry("n-plus-one-queries", "chatty-calls"),
            Map.entry("algorithmic-cpu", "cpu-hotspot"),
            Map.entry("heap-leak", "heap-leak"),
            Map.entry("over-fetching", "over-fetch"));

    private static final ObjectMapper JSON = new ObjectMapper();

    @Order(1)
    @Test
    void healthyRaisesNoWarning() throws Exception {
        Cli.Result r = all();
        Path caseDir = Path.of(lines(section(r, "healthy"), "Case file: ").get(0));
        System.out.println("healthy: " + lines(r.out, "Verdict: ").get(0) + " — " + caseDir);
        for (JsonNode f : JSON.readTree(Files.readString(caseDir.resolve("findings.json")))) {
            assertThat(f.path("severity").asText()).as("%s in %s\n%s", f.path("id").asText(), caseDir, r).isIn("OK", "INFO");
        }
    }

    /**
     * The faulty twin, then the fixed one, on the same lab process when their JVM flags match (a
     * switch of the lab's mode, as a redeploy of the fix), else on a new one (gc-pool-starvation,
     * whose fix is the heap size; receipt-leak, whose leaked heap would outlive a switch). Every
     * scenario in the lab's index but healthy: a new one is tested, and needs a rule above.
     */
    @Order(1)
    @ParameterizedTest(name = "{0}")
    @MethodSource("faultyScenarios")
    void diagnoseNamesTheGroundTruthAndItsFixedTwinDoesNot(String scenario) throws Exception {
        JsonNode truth = JSON.readTree(Path.of("..", "lab", "src", "main", "resources", "scenarios", scenario + ".json").toFile());
        String rule = RULE_FOR_CATEGORY.get(truth.path("rootCause").path("category").asText());
        assertThat(rule).as("a rule for %s's category", scenario).isNotNull();
        Cli.Result r = all();
        String faultyOut = section(r, scenario), fixedOut = section(r, scenario + " (fixed twin)");

        JsonNode seeded = seeded(scenario, false, faultyOut, rule, r);
        assertThat(lines(faultyOut, "Verdict: ").get(0)).as(r.toString()).isEqualTo(rule);
        assertThat(seeded.path("verdict").asText()).isEqualTo("CONFIRMED");
        assertThat(seeded.path("severity").asText()).isIn("WARN", "CRITICAL");
        String named = seeded.path("culprit").asText("") + " " + seeded.path("summary").asText("");
        assertThat(culprits(truth)).as("a ground-truth culprit in: %s", named).anyMatch(named::contains);

        JsonNode fixedSeeded = seeded(scenario, true, fixedOut, rule, r);
        if (rule.equals("idle-gap-latency") && !HostReclaim.describe().isEmpty()) {
            // Such a host makes every request after an idle gap slow (it refaults the JVM's pages), the fixed
            // twin's too: a true finding there. What the fix must remove is the seeded cause, the culprit.
            String fixedNamed = fixedSeeded.path("culprit").asText("") + " " + fixedSeeded.path("summary").asText("");
            System.out.println(scenario + " (fixed): the host pages out idle memory (" + HostReclaim.describe() + "): " + fixedNamed);
            assertThat(culprits(truth)).as("no ground-truth culprit in the fixed twin: %s", fixedNamed).noneMatch(fixedNamed::contains);
            return;
        }
        assertThat(lines(fixedOut, "Verdict: ").get(0)).as(r.toString()).isNotEqualTo(rule);
        assertThat(fixedSeeded.path("severity").asText()).as("%s in the fixed twin\n%s", rule, r).isIn("OK", "INFO");
        // The demo ends with the diff of the two cases: the seeded finding resolved.
        assertThat(fixedOut).as(r.toString()).containsPattern("\n  " + rule + ": (WARN|CRITICAL)/\\w+ → (OK|INFO)/");
    }

    /** The scorecard closes the run, a row per scenario with what each twin's diagnosis put first. */
    @Order(2)
    @Test
    void theScorecardListsEveryScenarioWithBothTwinsVerdicts() throws Exception {
        Cli.Result r = all();
        String card = section(r, "scorecard");
        System.out.print(card);
        for (String s : faultyScenarios()) {
            String firstFaulty = lines(section(r, s), "Verdict: ").get(0), firstFixed = lines(section(r, s + " (fixed twin)"), "Verdict: ").get(0);
            assertThat(card).as(r.toString()).containsPattern("(?m)^" + s + " +" + java.util.regex.Pattern.quote(firstFaulty) + "\\b.* "
                    + java.util.regex.Pattern.quote(firstFixed) + "\\b");
        }
        String healthy = lines(section(r, "healthy"), "Verdict: ").get(0);
        // One lab for healthy and every scenario sharing its JVM flags; gc-pool-starvation's twins and
        // receipt-leak's (a leak) two each: 5 lab starts for the 25 runs.
        assertThat(r.err.lines().filter(l -> l.startsWith("culprit demo: starting lab scenario"))).as(r.err).hasSize(5);
        assertThat(card).containsPattern("(?m)^healthy +" + java.util.regex.Pattern.quote(healthy) + "\\b.* - +\\(not run\\)$");
    }

    static List<String> faultyScenarios() throws Exception {
        List<String> out = new ArrayList<>();
        JSON.readTree(Path.of("..", "lab", "src", "main", "resources", "scenarios", "index.json").toFile()).path("scenarios")
                .forEach(n -> out.add(n.asText()));
        out.remove("healthy");
        return out;
    }

    /** The seeded rule's finding in the case one twin's run wrote; keeps the case for the diff. */
    private static JsonNode seeded(String scenario, boolean fixed, String out, String rule, Cli.Result r) throws Exception {
        Path caseDir = Path.of(lines(out, "Case file: ").get(0));
        CASES.put(scenario + " fixed=" + fixed, caseDir);
        System.out.println(scenario + (fixed ? " (fixed)" : "") + ": " + lines(out, "Verdict: ").get(0) + " — " + caseDir);
        return find(JSON.readTree(Files.readString(caseDir.resolve("findings.json"))), rule);
    }

    /**
     * The fix shows in the diff: throughput up, and the scenario's ground-truth cause
     * (repeated-construction, see lab/.../scenarios/converter-rebuild.json) listed as resolved.
     * The rebuild costs 4-5x CPU per request (closed model, 4 users), so throughput is asserted
     * at 2x, a margin a loaded 2-core machine keeps; the measured ratio is printed.
     */
    @Order(2)
    @Test
    void diffOfConverterRebuildAndItsFixedTwinShowsTheImprovementAndTheCauseResolved() throws Exception {
        String rule = "repeated-construction";
        String before = caseOf("converter-rebuild", false).toString(), after = caseOf("converter-rebuild", true).toString();

        Cli.Result text = Cli.run(120, "diff", before, after);
        assertThat(text.code).as(text.toString()).isZero();
        System.out.println(text.out);
        assertThat(text.out).containsPattern("(?m)^rps \\(mean\\) .* better$");
        String resolved = text.out.substring(text.out.indexOf("\nResolved ("), text.out.indexOf("\nStill present ("));
        assertThat(resolved).as(text.out).containsPattern("\n  " + rule + ": (WARN|CRITICAL)/\\w+ → (OK|INFO)/");

        Cli.Result json = Cli.run(120, "diff", before, after, "--format", "json");
        assertThat(json.code).as(json.toString()).isZero();
        JsonNode d = new ObjectMapper().readTree(json.out);
        JsonNode rps = null, cause = null;
        for (JsonNode m : d.path("metrics")) if (m.path("name").asText().equals("rps (mean)")) rps = m;
        for (JsonNode c : d.path("resolved")) if (c.path("id").asText().equals(rule)) cause = c;
        assertThat(rps).as(json.out).isNotNull();
        double ratio = rps.path("after").asDouble() / rps.path("before").asDouble();
        System.out.printf(Locale.ROOT, "converter-rebuild diff: rps %.1f -> %.1f (%.1fx)%n",
                rps.path("before").asDouble(), rps.path("after").asDouble(), ratio);
        assertThat(ratio).as("throughput after / before").isGreaterThanOrEqualTo(2.0);
        assertThat(cause).as("%s among the resolved findings: %s", rule, d.path("resolved")).isNotNull();
        assertThat(cause.path("before").path("severity").asText()).isIn("WARN", "CRITICAL");
        assertThat(cause.path("after").path("severity").asText()).isIn("OK", "INFO");

        // With a CPU profile on both sides, the culprit's share of CPU samples falls in the differential graph.
        JsonNode flame = d.path("flame");
        if (flame.isMissingNode() || flame.isNull()) {
            System.out.println("converter-rebuild diff: no differential flame graph (a case lacks profiles/cpu.collapsed)");
            return;
        }
        double[] share = culprit(flame.path("root"), "ConvertersCodec.converters", new double[2]);
        System.out.printf(Locale.ROOT, "converter-rebuild diff: ConvertersCodec.converters %.1f%% of CPU samples before, %.1f%% after%n",
                100 * share[0] / flame.path("samples").asDouble(), 100 * share[1] / flame.path("samples").asDouble());
        assertThat(share[0]).as("culprit's samples before (scaled)").isGreaterThan(2 * share[1]);
    }

    /** {before, after} samples under the outermost frames whose name contains {@code frame} ('/' or '.' separated). */
    private static double[] culprit(JsonNode node, String frame, double[] acc) {
        if (node.path("name").asText().replace('/', '.').contains(frame)) {
            acc[0] += node.path("before").asDouble();
            acc[1] += node.path("value").asDouble();
            return acc;
        }
        for (JsonNode c : node.path("children")) culprit(c, frame, acc);
        return acc;
    }

    /** The case the run above wrote, or a fresh one when the diff runs alone ({@code -Dit.test=DiagnoseLabIT#diff*}). */
    private static Path caseOf(String scenario, boolean fixed) {
        return CASES.computeIfAbsent(scenario + " fixed=" + fixed,
                k -> Path.of(lines(fixed ? demo(scenario, "--fixed").out : demo(scenario).out, "Case file: ").get(0)));
    }

    /** {@code demo --all --twins}, once for every test here. */
    private static synchronized Cli.Result all() {
        if (all == null) all = demo("--all", "--twins");
        return all;
    }

    private static Cli.Result all;

    private static Cli.Result demo(String... what) {
        // 7 s measured after a 2 s warm-up: 8 s after 3 s (session 25: every verdict and severity of
        // the 10 s / 5 s runs) had this test at 543 s of a 19:28 suite in session 38; 7 s after 2 s
        // keeps 23 runs × 2 s off it (see the session's DiagnoseLabIT run).
        List<String> args = new ArrayList<>(List.of("demo"));
        args.addAll(List.of(what));
        args.addAll(List.of("--duration", "7", "--warmup", "2"));
        // 25 runs of ~20 s and five lab starts: 9 minutes on a quiet 2-core machine.
        Cli.Result r = Cli.run(3_600, args.toArray(String[]::new));
        assertThat(r.code).as(r.toString()).isZero();
        return r;
    }

    /** What the demo printed under {@code == name ==}, up to the next such line. */
    private static String section(Cli.Result r, String name) {
        String marker = "== " + name + " ==\n";
        int at = r.out.startsWith(marker) ? 0 : r.out.indexOf("\n" + marker);
        assertThat(at).as("no section '%s'\n%s", name, r).isNotNegative();
        int from = at + (at == 0 ? 0 : 1) + marker.length();
        int to = r.out.indexOf("\n== ", from);
        return r.out.substring(from, to < 0 ? r.out.length() : to + 1);
    }

    /** What follows {@code prefix} on each line of {@code out} that starts with it, in order; at least one. */
    private static List<String> lines(String out, String prefix) {
        List<String> found = out.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()).trim()).toList();
        if (found.isEmpty()) throw new AssertionError("no '" + prefix + "' line\n" + out);
        return found;
    }

    private static JsonNode find(JsonNode findings, String id) {
        for (JsonNode f : findings) if (f.path("id").asText().equals(id)) return f;
        throw new AssertionError("no finding " + id + " in " + findings);
    }

    /** The ground truth's culprit classes and frames as they appear in text (a.b.C, a.b.C.method). */
    private static List<String> culprits(JsonNode truth) {
        List<String> out = new ArrayList<>();
        truth.path("culprit").path("classes").forEach(c -> out.add(c.asText()));
        truth.path("culprit").path("frames").forEach(f -> out.add(f.asText()));
        return out;
    }
}
