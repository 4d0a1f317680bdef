package io.culprit.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One rule's result over one case file. Every rule returns one, OK included, so the report shows
 * what was checked. {@code evidence} holds references such as {@code series/gc#pauseSumMs} or
 * {@code tables/exceptions#0} that the report links to; {@code explains} names the ids of the
 * findings this one causes (GC pressure → pool waits → tail latency): the root of that chain is
 * the verdict. {@code culprit} is the class, frame, query or lock the evidence points at (an
 * exception's throw site, a lock owner's frame, a hot frame, a caller), or null. {@code numbers}
 * ties each number the summary or explanation carries to the ref it was computed from, so the
 * report can link the number itself to its chart or table.
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
    private final List<NumberRef> numbers;

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
                   @JsonProperty("culprit") String culprit,
                   @JsonProperty("numbers") List<NumberRef> numbers) {
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
        this.numbers = List.copyOf(numbers == null ? List.of() : numbers);
    }

    /** The form before {@code numbers}; kept for callers that name no numbers. */
    public Finding(String id, String title, Severity severity, double score, Verdict verdict, String summary,
                   String explanation, String fix, String confirm, List<String> evidence, List<String> explains, String culprit) {
        this(id, title, severity, score, verdict, summary, explanation, fix, confirm, evidence, explains, culprit, null);
    }

    /** The first form of the model, without a culprit; kept because collectors already call it. */
    public Finding(String id, String title, Severity severity, double score, Verdict verdict, String summary,
                   String explanation, String fix, String confirm, List<String> evidence, List<String> explains) {
        this(id, title, severity, score, verdict, summary, explanation, fix, confirm, evidence, explains, null, null);
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
    /**
     * Each number of the summary or explanation that a rule tied to its source, in the order the
     * rule recorded them; empty for findings written before the field existed (and then omitted).
     */
    @JsonProperty @JsonInclude(JsonInclude.Include.NON_EMPTY) public List<NumberRef> numbers() { return numbers; }

    /** True for WARN and CRITICAL: the findings a verdict is made of. */
    @JsonIgnore
    public boolean isProblem() {
        return severity == Severity.WARN || severity == Severity.CRITICAL;
    }

    /** The same finding with the engine's verdict (rules propose, the engine decides). */
    public Finding withVerdict(Verdict v) {
        return new Finding(id, title, severity, score, v, summary, explanation, fix, confirm, evidence, explains, culprit, numbers);
    }

    @Override
    public String toString() {
        return id + "[" + severity + "/" + verdict + " " + score + "] " + summary;
    }

    /** Fluent construction for rules; unset text fields stay null, lists empty. */
    public static final class Builder {
        private final String id;
        private String title;
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
        private final List<NumberRef> numbers = new ArrayList<>();

        private Builder(String id, String title) {
            this.id = id;
            this.title = title;
        }

        /**
         * The hypothesis in this finding's own words, when its evidence says more than the rule's title: a
         * hand-off to a full pool is found by the lock rule, but the user's problem is the pool, not a lock.
         */
        public Builder title(String t) { this.title = t; return this; }
        public Builder severity(Severity s) { this.severity = s; return this; }
        public Builder score(double s) { this.score = Double.isFinite(s) ? Math.max(0, Math.min(1, s)) : 0; return this; }
        public Builder verdict(Verdict v) { this.verdict = v; return this; }
        public Builder summary(String s) { this.summary = s; return this; }
        public Builder explanation(String s) { this.explanation = s; return this; }
        public Builder fix(String s) { this.fix = s; return this; }
        public Builder confirm(String s) { this.confirm = s; return this; }
        public Builder culprit(String s) { this.culprit = s; return this; }
        public Builder evidence(String ref) { this.evidence.add(ref); return this; }
        /** A number exactly as the summary or explanation prints it, and the ref it was computed from. */
        public Builder number(String text, String ref) { this.numbers.add(new NumberRef(text, ref)); return this; }
        public Builder numbers(List<NumberRef> refs) { this.numbers.addAll(refs); return this; }
        public Builder explains(String findingId) {
            if (!explains.contains(findingId)) explains.add(findingId);
            return this;
        }

        /** Without an explicit verdict: OK is ruled out, anything above is a candidate cause. */
        public Finding build() {
            Verdict v = verdict != null ? verdict : severity == Severity.OK ? Verdict.RULED_OUT : Verdict.CONTRIBUTING;
            return new Finding(id, title, severity, score, v, summary, explanation, fix, confirm, evidence, explains, culprit, numbers);
        }
    }

    /**
     * One number of a finding's text and where it came from: {@code text} as printed ("42 %",
     * "1,040 ms"), {@code ref} an evidence ref such as {@code series/gc#pauseSumMs}.
     */
    public static final class NumberRef {
        private final String text;
        private final String ref;

        @JsonCreator
        public NumberRef(@JsonProperty("text") String text, @JsonProperty("ref") String ref) {
            this.text = Objects.requireNonNull(text, "text");
            this.ref = Objects.requireNonNull(ref, "ref");
        }

        @JsonProperty public String text() { return text; }
        @JsonProperty public String ref() { return ref; }

        @Override public boolean equals(Object o) {
            return o instanceof NumberRef && ((NumberRef) o).text.equals(text) && ((NumberRef) o).ref.equals(ref);
        }

        @Override public int hashCode() { return Objects.hash(text, ref); }

        @Override public String toString() { return text + "→" + ref; }
    }
}
