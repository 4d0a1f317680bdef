package io.culprit.diagnosis;

import io.culprit.diagnosis.internal.CausalGraph;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The engine: runs every rule over a case file, links findings into causal chains through their
 * {@code explains}, and decides each hypothesis's verdict. The verdict is the root of the chain
 * (GC pressure, not the tail latency it causes): a problem that no other problem explains, ranked
 * by the worst severity in its chain, then its own severity and score.
 *
 * <p>Entry points for live diagnose, analyze and demo: {@link #run(CaseFile)}, then
 * {@link VerdictRenderer#render(Result)}; {@code findings.json} is {@link Result#findings()}.
 */
public final class Diagnosis {
    private Diagnosis() { }

    /** Every rule on the class path (ServiceLoader), in id order so runs are reproducible. */
    public static List<Rule> rules() {
        List<Rule> rules = new ArrayList<>();
        ServiceLoader.load(Rule.class, Diagnosis.class.getClassLoader()).forEach(rules::add);
        rules.sort(Comparator.comparing(Rule::id));
        return rules;
    }

    public static Result run(CaseFile caseFile) {
        return run(caseFile, rules());
    }

    /** Runs every rule and records the ranked findings as the case's {@code findings.json}. */
    public static Result runAndWrite(CaseFile caseFile) {
        Result r = run(caseFile);
        caseFile.writeFindings(r.findings());
        return r;
    }

    public static Result run(CaseFile caseFile, List<Rule> rules) {
        // The application's own packages, when the agent recorded them, draw the line between the
        // service's code and its libraries for every rule (Frames.isApplication).
        return Frames.withApplication(caseFile.info().target().get("appPackages"), () -> judge(caseFile, rules));
    }

    private static Result judge(CaseFile caseFile, List<Rule> rules) {
        Evidence evidence = new Evidence(caseFile);
        List<Finding> raw = new ArrayList<>();
        for (Rule r : rules) raw.add(evaluate(r, evidence));
        Set<String> symptoms = rules.stream().filter(Rule::symptom).map(Rule::id).collect(Collectors.toSet());
        CausalGraph graph = new CausalGraph(raw, symptoms);
        return new Result(caseFile, graph.ranked(), graph.chain(), symptoms.contains(graph.top()));
    }

    // A rule that breaks on odd evidence must not cost the user the other rules' verdicts.
    private static Finding evaluate(Rule rule, Evidence evidence) {
        try {
            Finding f = rule.evaluate(evidence);
            return f != null ? f : rule.notAssessed("rule " + rule.id() + " returned no finding (a defect)");
        } catch (RuntimeException e) {
            return rule.notAssessed("rule " + rule.id() + " failed on this evidence: " + e);
        }
    }

    /** The ranked findings (verdicts decided) and the causal chain of the #1 root cause. */
    public static final class Result {
        private final CaseFile caseFile;
        private final List<Finding> findings;
        private final List<Finding> chain;
        private final boolean topIsSymptom;

        Result(CaseFile caseFile, List<Finding> findings, List<Finding> chain, boolean topIsSymptom) {
            this.caseFile = caseFile;
            this.findings = List.copyOf(findings);
            this.chain = List.copyOf(chain);
            this.topIsSymptom = topIsSymptom;
        }

        /** True when the top finding is an effect no checked hypothesis explains: no cause identified. */
        public boolean topIsSymptom() { return topIsSymptom; }

        public CaseFile caseFile() { return caseFile; }

        /** Every hypothesis, ranked: confirmed, contributing, ruled out, not assessed. */
        public List<Finding> findings() { return findings; }

        /** The #1 root cause, when some finding is WARN or CRITICAL. */
        public Optional<Finding> top() {
            return findings.stream().filter(f -> f.verdict() == Verdict.CONFIRMED).findFirst();
        }

        /** Root first, then what it explains, one link per step: gc-pressure → pool-starvation → ... */
        public List<Finding> chain() { return chain; }

        public Optional<Finding> finding(String id) {
            return findings.stream().filter(f -> f.id().equals(id)).findFirst();
        }

        /** True when no finding is WARN or CRITICAL. */
        public boolean healthy() {
            return findings.stream().noneMatch(f -> f.severity() == Severity.WARN || f.severity() == Severity.CRITICAL);
        }
    }
}
