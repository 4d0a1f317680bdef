package io.culprit.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every rule over every case file under {@code src/test/resources/cases/}: each names its
 * expected #1 root cause and culprit ({@code expected.json}: {@code top}, {@code culprit}),
 * healthy ones ({@code "top": null}) have no WARN or CRITICAL finding, fixed twins list the
 * findings that must be gone ({@code absent}), every rule answers every case, and the verdict
 * fits 100 columns.
 */
class BaselineTest {

    static Path casesDir() throws URISyntaxException {
        return Path.of(BaselineTest.class.getResource("/cases").toURI());
    }

    @TestFactory
    Stream<DynamicTest> everyCaseFileGetsItsExpectedVerdict() throws Exception {
        List<Path> cases;
        try (Stream<Path> s = Files.list(casesDir())) {
            cases = s.filter(p -> Files.isRegularFile(p.resolve("case.json"))).sorted().collect(Collectors.toList());
        }
        assertThat(cases).hasSizeGreaterThanOrEqualTo(6);
        return cases.stream().map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> check(dir)));
    }

    private static void check(Path dir) throws IOException {
        JsonNode expected = CaseFile.json().readTree(dir.resolve("expected.json").toFile());
        Diagnosis.Result result = Diagnosis.run(CaseFile.open(dir));
        String text = VerdictRenderer.render(result);
        assertThat(result.findings()).hasSize(Diagnosis.rules().size());
        assertThat(result.findings()).allSatisfy(f -> assertThat(f.summary()).isNotBlank());
        assertThat(text.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(VerdictRenderer.WIDTH));
        for (JsonNode absent : expected.path("absent")) {
            assertThat(result.finding(absent.asText())).as(text).hasValueSatisfying(f -> assertThat(f.isProblem()).isFalse());
        }
        if (!expected.has("top")) return; // a fixed twin: only its seeded findings must be gone
        if (expected.get("top").isNull()) {
            assertThat(result.findings()).as(text).noneMatch(Finding::isProblem);
            assertThat(result.top()).isEmpty();
            assertThat(text).contains("No root cause found");
            return;
        }
        Finding top = result.top().orElseThrow(() -> new AssertionError("no root cause found\n" + text));
        assertThat(top.id()).as(text).isEqualTo(expected.get("top").asText());
        assertThat(top.culprit()).as(text).contains(expected.get("culprit").asText());
        assertThat(top.severity()).isIn(Severity.WARN, Severity.CRITICAL);
        assertThat(result.findings().get(0)).isEqualTo(top);
        assertThat(result.findings()).filteredOn(f -> f.verdict() == Verdict.CONFIRMED).hasSize(1);
        assertThat(text).contains("#1 ROOT CAUSE", top.id(), top.summary().substring(0, 20).split("\\s+")[0]);
    }
}
