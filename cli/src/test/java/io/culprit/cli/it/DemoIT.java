package io.culprit.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The newcomer path end to end through the real CLI: {@code culprit demo SCENARIO} starts the lab,
 * diagnoses it live under load and must name the scenario's ground-truth root cause as #1; the
 * {@code --fixed} twin must not. Each run takes about a minute on 2 cores, so this covers one
 * scenario per evidence path (JFR GC series; class-loading stacks) rather than all of them.
 */
class DemoIT {

    @ParameterizedTest(name = "{0} fixed={1}")
    @CsvSource({
            "gc-pool-starvation, false, gc-pressure",
            "gc-pool-starvation, true,  gc-pressure",
            "converter-rebuild,  false, repeated-construction",
    })
    void demoNamesTheGroundTruthAndItsFixedTwinDoesNot(String scenario, boolean fixed, String rule) throws Exception {
        Cli.Result r = fixed ? Cli.run(300, "demo", scenario, "--fixed", "--duration", "15")
                : Cli.run(300, "demo", scenario, "--duration", "15");
        assertThat(r.code).as(r.toString()).isZero();
        String verdict = r.out.lines().filter(l -> l.startsWith("Verdict: ")).findFirst().orElse("");
        Path caseDir = Path.of(r.out.lines().filter(l -> l.startsWith("Case file: ")).findFirst().orElseThrow().substring(11));
        JsonNode findings = new ObjectMapper().readTree(Files.readString(caseDir.resolve("findings.json")));
        JsonNode seeded = null;
        for (JsonNode f : findings) if (f.path("id").asText().equals(rule)) seeded = f;
        assertThat(seeded).as("finding %s in %s", rule, caseDir).isNotNull();
        if (fixed) {
            assertThat(verdict).as(r.toString()).isNotEqualTo("Verdict: " + rule);
            assertThat(seeded.path("severity").asText()).as(r.toString()).isIn("OK", "INFO");
        } else {
            assertThat(verdict).as(r.toString()).isEqualTo("Verdict: " + rule);
            assertThat(seeded.path("verdict").asText()).isEqualTo("CONFIRMED");
        }
    }
}
