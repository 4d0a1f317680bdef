package io.culprit.model;

/** How much a finding matters; OK findings are kept so the report shows what was checked. */
public enum Severity {
    OK, INFO, WARN, CRITICAL
}
