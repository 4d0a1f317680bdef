package io.culprit.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;

/**
 * One rule's result over one case file. Every rule returns one, OK included, so the report shows
 * what was checked. {@code evidence} holds references such as {@code series/gc#pauseSumMs} or
 * {@code tables/exceptions#0} that the report links to; {@code explains} names the ids of the
 * findings this one causes (GC pressure → pool waits → tail latency): the root of that chain is
 * the verdict. {@code culprit} is the class, frame, query or lock the evidence points at (an
 * exception's throw site, a lock owner's frame, a hot frame, a caller), or null.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class Finding {
    private final String id;
    private final String title;
    private final Severity severity;
    private final double score;
    private final Verdict verdict;
    private final String summary;
    private final String explanation;
    private final String fix;
    private final String confirm;
    private final List<String> evidence;
    private final List<String> explains;
    private final String culprit;

    @JsonCreator
    public Finding(@JsonProperty("id") String id,
                   @JsonProperty("title") String title,
                   @JsonProperty("severity") Severity severity,
                   @JsonProperty("score") double score,
                   @JsonProperty("verdict") Verdict verdict,
                   @JsonProperty("summary") String summary,
                   @JsonProperty("explanation") String explanation,
                   @JsonProperty("fix") String fix,
                   @JsonProperty("confirm") String confirm,
                   @JsonProperty("evidence") List<String> evidence,
                   @JsonProperty("explains") List<String> explains,
                   @JsonProperty("culprit") String culprit) {
        this.id = id;
        this.title = title;
        this.severity = severity;
        this.score = score;
        this.verdict = verdict;
        this.summary = summary;
        this.explanation = explanation;
        this.fix = fix;
        this.confirm = confirm;
        this.evidence = List.copyOf(evidence == null ? List.of() : evidence);
        this.explains = List.copyOf(explains == null ? List.of() : explains);
        this.culprit = culprit;
    }

    /** The first form of the model, without a culprit; kept because collectors already call it. */
    public Finding(String id, String title, Severity severity, double score, Verdict verdict, String summary,
                   String explanation, String fix, String confirm, List<String> evidence, List<String> explains) {
        this(id, title, severity, score, verdict, summary, explanation, fix, confirm, evidence, explains, null);
    }

    public static Builder builder(String id, String title) {
        return new Builder(id, title);
    }

    @JsonProperty public String id() { return id; }
    @JsonProperty public String title() { return title; }
    @JsonProperty public Severity severity() { return severity; }
    /** 0..1: how much of the observed latency or CPU this finding accounts for. */
    @JsonProperty public double score() { return score; }
    @JsonProperty public Verdict verdict() { return verdict; }
    /** One sentence carrying the numbers. */
    @JsonProperty public String summary() { return summary; }
    @JsonProperty public String explanation() { return explanation; }
    @JsonProperty public String fix() { return fix; }
    /** A culprit command that confirms the finding on the live service. */
    @JsonProperty public String confirm() { return confirm; }
    @JsonProperty public List<String> evidence() { return evidence; }
    @JsonProperty public List<String> explains() { return explains; }
    /** The class, frame, query or lock named by the evidence; null when the rule names none. */
    @JsonProperty public String culprit() { return culprit; }

    /** True for WARN and CRITICAL: the findings a verdict is made of. */
    @JsonIgnore
    public boolean isProblem() {
        return severity == Severity.WARN || severity == Severity.CRITICAL;
    }

    /** The same finding with the engine's verdict (rules propose, the engine decides). */
    public Finding withVerdict(Verdict v) {
        return new Finding(id, title, severity, score, v, summary, explanation, fix, confirm, evidence, explains, culprit);
    }

    @Override
    public String toString() {
        return id + "[" + severity + "/" + verdict + " " + score + "] " + summary;
    }

    /** Fluent construction for rules; unset text fields stay null, lists empty. */
    public static final class Builder {
        private final String id;
        private final String title;
        private Severity severity = Severity.OK;
        private double score;
        private Verdict verdict;
        private String summary;
        private String explanation;
        private String fix;
        private String confirm;
        private String culprit;
        private final List<String> evidence = new ArrayList<>();
        private final List<String> explains = new ArrayList<>();

        private Builder(String id, String title) {
            this.id = id;
            this.title = title;
        }

        public Builder severity(Severity s) { this.severity = s; return this; }
        public Builder score(double s) { this.score = Double.isFinite(s) ? Math.max(0, Math.min(1, s)) : 0; return this; }
        public Builder verdict(Verdict v) { this.verdict = v; return this; }
        public Builder summary(String s) { this.summary = s; return this; }
        public Builder explanation(String s) { this.explanation = s; return this; }
        public Builder fix(String s) { this.fix = s; return this; }
        public Builder confirm(String s) { this.confirm = s; return this; }
        public Builder culprit(String s) { this.culprit = s; return this; }
        public Builder evidence(String ref) { this.evidence.add(ref); return this; }
        public Builder explains(String findingId) {
            if (!explains.contains(findingId)) explains.add(findingId);
            return this;
        }

        /** Without an explicit verdict: OK is ruled out, anything above is a candidate cause. */
        public Finding build() {
            Verdict v = verdict != null ? verdict : severity == Severity.OK ? Verdict.RULED_OUT : Verdict.CONTRIBUTING;
            return new Finding(id, title, severity, score, v, summary, explanation, fix, confirm, evidence, explains, culprit);
        }
    }
}
