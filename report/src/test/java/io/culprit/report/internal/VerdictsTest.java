package io.culprit.report.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class VerdictsTest {
    /** The page must show the chain the terminal printed: recomputed from findings.json alone, it must agree. */
    @Test
    void chainFromFindingsAloneMatchesTheEnginesChainOnEveryFixture() throws IOException {
        List<Path> cases;
        try (Stream<Path> s = Files.list(Path.of("../diagnosis/src/test/resources/cases"))) {
            cases = s.filter(Files::isDirectory).sorted().toList();
        }
        assertThat(cases).hasSizeGreaterThanOrEqualTo(10);
        int withVerdict = 0;
        for (Path c : cases) {
            Diagnosis.Result r = Diagnosis.run(CaseFile.open(c));
            if (r.top().isEmpty()) continue;
            withVerdict++;
            assertThat(Verdicts.chain(r.top().get(), r.findings())).as(c.getFileName().toString())
                    .isEqualTo(r.chain().stream().map(Finding::id).toList());
            assertThat(Verdicts.isSymptom(r.top().get().id())).as(c.getFileName() + " symptom").isEqualTo(r.topIsSymptom());
        }
        assertThat(withVerdict).isGreaterThanOrEqualTo(8);
    }
}
