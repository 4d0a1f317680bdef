package io.culprit.model;

/** Where a hypothesis stands after the rules ran. */
public enum Verdict {
    /** The root cause: the evidence supports it and nothing upstream explains it. */
    CONFIRMED,
    /** Real and measured, but explained by (or adding to) another finding. */
    CONTRIBUTING,
    /** Checked and contradicted by the evidence named in the finding. */
    RULED_OUT,
    /** The evidence needed to decide was not collected. */
    NOT_ASSESSED
}
