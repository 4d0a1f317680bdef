package io.culprit.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.culprit.model.CaseFile;

/** The report as JSON: the {@link Report} object itself, for tools that post-process it. */
public final class JsonReport {
    private JsonReport() { }

    public static String render(Report r) {
        try {
            return CaseFile.json().writeValueAsString(r) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize the report: " + e.getMessage(), e);
        }
    }
}
