package io.culprit.diagnosis;

import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;

/**
 * One hypothesis about why a service is slow, checked against a case file. Implementations are
 * small, stateless and pure: evidence in, finding out. They are discovered by ServiceLoader
 * ({@code META-INF/services/io.culprit.diagnosis.Rule}), so a new rule is one class and one line.
 *
 * <p>Contract: {@link #evaluate} never returns null and never throws for missing evidence; it
 * returns OK (ruled out, saying by what) or NOT_ASSESSED (saying what was missing). Thresholds
 * are named constants with the reason for their value. The summary is one sentence that carries
 * the numbers. A rule names the findings it causes in {@code explains}; the engine keeps only
 * the edges whose target is itself a problem and makes the root of the chain the verdict.
 */
public interface Rule {

    /** Stable id, used in findings.json and in other rules' {@code explains}. */
    String id();

    /** The hypothesis in a few words, e.g. "GC pressure starves the connection pool". */
    String title();

    Finding evaluate(Evidence evidence);

    /**
     * True for rules that measure an effect (tail latency, pool waits) rather than a mechanism.
     * A cause, whatever its severity, is preferred over a symptom as the verdict; a symptom that
     * is the verdict is shown as "no cause identified".
     */
    default boolean symptom() {
        return false;
    }

    /** A finding for a hypothesis whose evidence was not collected. */
    default Finding notAssessed(String missing) {
        return Finding.builder(id(), title()).severity(Severity.OK).verdict(Verdict.NOT_ASSESSED)
                .summary("not assessed: " + missing).build();
    }

    /** A builder pre-filled with this rule's id and title. */
    default Finding.Builder finding(Severity severity) {
        return Finding.builder(id(), title()).severity(severity);
    }
}
