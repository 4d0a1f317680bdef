package io.culprit.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine: verdicts from causal chains, robustness to broken rules, findings.json. */
class DiagnosisTest {
    @TempDir Path dir;

    /** A rule that returns a fixed finding, to exercise the engine without evidence. */
    private static Rule fixed(String id, Severity s, double score, String... explains) {
        return new Rule() {
            @Override public String id() { return id; }
            @Override public String title() { return id; }
            @Override public Finding evaluate(Evidence ev) {
                Finding.Builder b = finding(s).score(score).summary(id + " measured");
                for (String e : explains) b.explains(e);
                return b.build();
            }
        };
    }

    private Diagnosis.Result run(Rule... rules) {
        return Diagnosis.run(CaseBuilder.in(dir, 10, 2).caseFile(), List.of(rules));
    }

    @Test
    void theRootOfTheChainWinsOverTheLoudestSymptom() {
        Diagnosis.Result r = run(fixed("tail", Severity.CRITICAL, 0.9), fixed("pool", Severity.CRITICAL, 0.8, "tail"),
                fixed("gc", Severity.WARN, 0.3, "pool", "tail"));
        assertThat(r.top().orElseThrow().id()).isEqualTo("gc");
        assertThat(r.chain().stream().map(Finding::id)).containsExactly("gc", "pool", "tail");
        assertThat(r.findings().stream().map(f -> f.id() + ":" + f.verdict()))
                .containsExactly("gc:CONFIRMED", "tail:CONTRIBUTING", "pool:CONTRIBUTING");
    }

    @Test
    void aCauseBeatsALouderUnexplainedSymptom() {
        Rule tail = new Rule() {
            @Override public String id() { return "tail"; }
            @Override public String title() { return "tail"; }
            @Override public boolean symptom() { return true; }
            @Override public Finding evaluate(Evidence ev) { return finding(Severity.CRITICAL).score(0.9).summary("p99").build(); }
        };
        Diagnosis.Result r = run(tail, fixed("lock", Severity.WARN, 0.2));
        assertThat(r.top().orElseThrow().id()).isEqualTo("lock");
        assertThat(r.topIsSymptom()).isFalse();
        Diagnosis.Result alone = run(tail);
        assertThat(alone.top().orElseThrow().id()).isEqualTo("tail");
        assertThat(alone.topIsSymptom()).isTrue();
        assertThat(VerdictRenderer.render(alone)).contains("#1 FINDING, NO CAUSE IDENTIFIED [CRITICAL] tail");
    }

    @Test
    void anEdgeToSomethingThatIsNotAProblemIsIgnored() {
        Diagnosis.Result r = run(fixed("lock", Severity.WARN, 0.2, "gc"), fixed("gc", Severity.OK, 0),
                fixed("logs", Severity.CRITICAL, 0.1));
        assertThat(r.top().orElseThrow().id()).isEqualTo("logs");
        assertThat(r.finding("gc").orElseThrow().verdict()).isEqualTo(Verdict.RULED_OUT);
        assertThat(r.finding("lock").orElseThrow().verdict()).isEqualTo(Verdict.CONTRIBUTING);
    }

    @Test
    void aCycleStillYieldsOneConfirmedRoot() {
        Diagnosis.Result r = run(fixed("a", Severity.WARN, 0.2, "b"), fixed("b", Severity.WARN, 0.6, "a"));
        assertThat(r.top().orElseThrow().id()).isEqualTo("b");
        assertThat(r.chain().stream().map(Finding::id)).containsExactly("b", "a");
    }

    @Test
    void aRuleThatThrowsIsNotAssessedAndTheOthersStillRun() {
        Rule broken = new Rule() {
            @Override public String id() { return "broken"; }
            @Override public String title() { return "broken"; }
            @Override public Finding evaluate(Evidence ev) { throw new IllegalStateException("bad column"); }
        };
        Diagnosis.Result r = run(broken, fixed("gc", Severity.WARN, 0.5));
        Finding f = r.finding("broken").orElseThrow();
        assertThat(f.verdict()).isEqualTo(Verdict.NOT_ASSESSED);
        assertThat(f.summary()).contains("rule broken failed on this evidence", "bad column");
        assertThat(r.top().orElseThrow().id()).isEqualTo("gc");
    }

    @Test
    void infoIsContributingAndNoProblemMeansNoRoot() {
        Diagnosis.Result r = run(fixed("minor", Severity.INFO, 0.1), fixed("fine", Severity.OK, 0));
        assertThat(r.top()).isEmpty();
        assertThat(r.healthy()).isTrue();
        assertThat(r.finding("minor").orElseThrow().verdict()).isEqualTo(Verdict.CONTRIBUTING);
    }

    @Test
    void everyRuleIsDiscoveredOnceWithAUniqueId() {
        List<String> ids = Diagnosis.rules().stream().map(Rule::id).collect(Collectors.toList());
        assertThat(ids).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(17)
                .contains("outside-handler", "idle-gap-latency", "caught-exceptions", "hot-path-classloading", "repeated-construction",
                        "prototype-beans", "lock-contention", "gc-pressure", "pool-starvation", "pool-size", "slow-calls",
                        "db-row-lock", "cpu-saturation", "thread-oversubscription", "logging-pressure", "serialization-cpu");
    }

    /** Rules must generalise: no rule may be keyed to the lab's (or a fixture's) own classes. */
    @Test
    void noRuleNamesApplicationClasses() throws Exception {
        for (Rule rule : Diagnosis.rules()) {
            String resource = "/" + rule.getClass().getName().replace('.', '/') + ".class";
            try (var in = rule.getClass().getResourceAsStream(resource)) {
                String bytes = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
                assertThat(bytes).as(rule.id()).doesNotContain("io.culprit.lab", "io/culprit/lab", "com.example", "PricingClient");
            }
        }
    }

    @Test
    void runAndWriteRecordsRankedFindingsInTheCaseFile() {
        CaseFile cf = CaseFile.open(Fixtures.dir("gc-pool-starvation"));
        Path copy = dir.resolve("copy");
        CaseFile target = CaseFile.create(copy);
        target.write(cf.info());
        cf.seriesNames().forEach(n -> target.write(cf.series(n).orElseThrow()));
        cf.tableNames().forEach(n -> target.write(cf.table(n).orElseThrow()));
        Diagnosis.Result r = Diagnosis.runAndWrite(target);
        List<Finding> back = CaseFile.open(copy).findings();
        assertThat(back).hasSameSizeAs(r.findings());
        assertThat(back.get(0).id()).isEqualTo("gc-pressure");
        assertThat(back.get(0).verdict()).isEqualTo(Verdict.CONFIRMED);
        assertThat(back.get(0).culprit()).isEqualTo("G1 heap sizing");
    }
}
