package io.culprit.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 8's acceptance test, through the real CLI: {@code culprit demo SCENARIO} starts the lab
 * scenario, diagnoses it live under the load its ground-truth file names, and must confirm the
 * ground truth's root cause as the #1 finding, naming one of its culprit classes or frames; the
 * {@code --fixed} twin must not raise that finding as a problem; {@code healthy} must raise no
 * WARN or CRITICAL at all. The rule expected for each ground-truth category is the only
 * knowledge this test adds: the rules themselves know nothing of the lab. Then {@code culprit diff}
 * of converter-rebuild and its fixed twin, on the cases those runs wrote (issue 9).
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
            Map.entry("heap-leak", "heap-leak"));

    private static final ObjectMapper JSON = new ObjectMapper();

    @Order(1)
    @ParameterizedTest(name = "{0} fixed={1}")
    @CsvSource({
            "healthy,            false",
            "gc-pool-starvation, false",
            "gc-pool-starvation, true",
            "row-lock,           false",
            "row-lock,           true",
            "converter-rebuild,  false",
            "converter-rebuild,  true",
            "binding-exceptions, false",
            "binding-exceptions, true",
            "prototype-bean,     false",
            "prototype-bean,     true",
            "log-storm,          false",
            "log-storm,          true",
            "timer-lock,         false",
            "timer-lock,         true",
            "idle-resource-scan, false",
            "idle-resource-scan, true",
            "n-plus-one,         false",
            "n-plus-one,         true",
            "quadratic-keywords, false",
            "quadratic-keywords, true",
            "receipt-leak,       false",
            "receipt-leak,       true",
    })
    void diagnoseNamesTheGroundTruthAndItsFixedTwinDoesNot(String scenario, boolean fixed) throws Exception {
        JsonNode truth = JSON.readTree(Path.of("..", "lab", "src", "main", "resources", "scenarios", scenario + ".json").toFile());
        Cli.Result r = demo(scenario, fixed);
        Path caseDir = Path.of(line(r, "Case file: "));
        CASES.put(scenario + " fixed=" + fixed, caseDir);
        JsonNode findings = JSON.readTree(Files.readString(caseDir.resolve("findings.json")));
        String verdict = line(r, "Verdict: ");
        System.out.println(scenario + (fixed ? " (fixed)" : "") + ": " + verdict + " — " + caseDir);

        if (scenario.equals("healthy")) {
            for (JsonNode f : findings) {
                assertThat(f.path("severity").asText()).as("%s in %s\n%s", f.path("id").asText(), caseDir, r).isIn("OK", "INFO");
            }
            return;
        }
        String rule = RULE_FOR_CATEGORY.get(truth.path("rootCause").path("category").asText());
        assertThat(rule).as("a rule for %s's category", scenario).isNotNull();
        JsonNode seeded = find(findings, rule);
        if (fixed) {
            assertThat(verdict).as(r.toString()).isNotEqualTo(rule);
            assertThat(seeded.path("severity").asText()).as("%s in the fixed twin\n%s", rule, r).isIn("OK", "INFO");
            return;
        }
        assertThat(verdict).as(r.toString()).isEqualTo(rule);
        assertThat(seeded.path("verdict").asText()).isEqualTo("CONFIRMED");
        assertThat(seeded.path("severity").asText()).isIn("WARN", "CRITICAL");
        String named = seeded.path("culprit").asText("") + " " + seeded.path("summary").asText("");
        assertThat(culprits(truth)).as("a ground-truth culprit in: %s", named).anyMatch(named::contains);
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
        return CASES.computeIfAbsent(scenario + " fixed=" + fixed, k -> Path.of(line(demo(scenario, fixed), "Case file: ")));
    }

    private static Cli.Result demo(String scenario, boolean fixed) {
        // 8 s measured after a 3 s warm-up: a sweep of all 23 runs so (session 25) gave every verdict
        // and severity of the 10 s / 5 s runs, and brings the suite under its 20 minutes.
        List<String> args = new ArrayList<>(List.of("demo", scenario, "--duration", "8", "--warmup", "3"));
        if (fixed) args.add("--fixed");
        Cli.Result r = Cli.run(300, args.toArray(String[]::new));
        assertThat(r.code).as(r.toString()).isZero();
        return r;
    }

    private static String line(Cli.Result r, String prefix) {
        return r.out.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no '" + prefix + "' line\n" + r)).substring(prefix.length()).trim();
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
