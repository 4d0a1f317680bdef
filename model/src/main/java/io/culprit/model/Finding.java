package io.culprit.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One rule's result over one case file. Every rule returns one, OK included, so the report shows
 * what was checked. {@code evidence} holds references such as {@code series/gc#pauseSumMs} or
 * {@code tables/exceptions#0} that the report links to; {@code explains} names the ids of the
 * findings this one causes (GC pressure → pool waits → tail latency): the root of that chain is
 * the verdict.
 */
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
                   @JsonProperty("explains") List<String> explains) {
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
}
