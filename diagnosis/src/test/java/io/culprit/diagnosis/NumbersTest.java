package io.culprit.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Table;
import io.culprit.model.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The numbers every rule ties to its evidence, over every recorded case: each tagged text is
 * printed in the finding's summary or explanation, each ref names a series column, a table (row)
 * or a profile the case holds (what the report links to), and every rule that was assessed on
 * some case tags the numbers it printed there.
 */
class NumbersTest {

    @Test
    void everyTaggedNumberIsPrintedAndPointsAtEvidenceTheCaseHolds() throws Exception {
        List<Path> cases;
        try (Stream<Path> s = Files.list(BaselineTest.casesDir())) {
            cases = s.filter(p -> Files.isRegularFile(p.resolve("case.json"))).sorted().collect(Collectors.toList());
        }
        Set<String> assessed = new HashSet<>(), tagging = new HashSet<>();
        int tags = 0;
        for (Path dir : cases) {
            CaseFile cf = CaseFile.open(dir);
            for (Finding f : Diagnosis.run(cf).findings()) {
                if (f.verdict() != Verdict.NOT_ASSESSED) assessed.add(f.id());
                if (!f.numbers().isEmpty()) tagging.add(f.id());
                String text = f.summary() + "\n" + (f.explanation() == null ? "" : f.explanation());
                for (Finding.NumberRef n : f.numbers()) {
                    String where = dir.getFileName() + " " + f.id() + " " + n;
                    assertThat(text).as(where).contains(n.text());
                    assertThat(resolves(cf, n.ref())).as(where + ": the case holds no " + n.ref()).isTrue();
                    tags++;
                }
            }
        }
        assertThat(tags).isGreaterThan(300);
        assertThat(tagging).as("rules that tag their numbers").containsAll(assessed);
    }

    @Test
    void aRefToAnAbsentColumnOrRowDoesNotResolve() {
        CaseFile cf = CaseFile.open(Fixtures.dir("timer-lock-log-storm"));
        assertThat(resolves(cf, "tables/locks#1")).isTrue();
        assertThat(resolves(cf, "tables/locks#99")).isFalse();
        assertThat(resolves(cf, "series/gc#pauseSumMs")).isTrue();
        assertThat(resolves(cf, "series/gc#nothing")).isFalse();
        assertThat(resolves(cf, "profiles/cpu.collapsed")).isFalse();
    }

    /** What the report can link: a series column with values, a table (and the row, when named), a profile file. */
    static boolean resolves(CaseFile cf, String ref) {
        Evidence ev = new Evidence(cf);
        int hash = ref.indexOf('#');
        String path = hash < 0 ? ref : ref.substring(0, hash), part = hash < 0 ? "" : ref.substring(hash + 1);
        if (path.startsWith("series/")) return !part.isEmpty() && ev.has(path.substring("series/".length()), part);
        if (path.startsWith("tables/")) {
            Optional<Table> t = ev.table(path.substring("tables/".length()));
            return t.isPresent() && (part.isEmpty() || Integer.parseInt(part) < t.get().rows().size());
        }
        // The load generator's result: a file the case holds, not a series or table of it.
        if (path.equals("load.json")) return part.isEmpty() && Files.isRegularFile(cf.dir().resolve("load.json"));
        return path.startsWith("profiles/") && Files.isRegularFile(cf.profile(path.substring("profiles/".length())));
    }
}
