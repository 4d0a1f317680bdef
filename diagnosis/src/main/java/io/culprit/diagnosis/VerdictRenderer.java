package io.culprit.diagnosis;

import io.culprit.diagnosis.internal.TextWrap;
import io.culprit.model.Finding;
import io.culprit.model.Verdict;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The terminal verdict: the #1 root cause in one sentence with its numbers, the causal chain,
 * the fix and the command that confirms it; then every hypothesis ranked with its key evidence
 * and verdict. Plain text, never wider than {@link #WIDTH} columns.
 */
public final class VerdictRenderer {
    public static final int WIDTH = 100;
    private static final int LABEL = 11;
    private static final int EVIDENCE_LINES = 3;
    private static final int EVIDENCE_INDENT = 4;

    private VerdictRenderer() { }

    public static String render(Diagnosis.Result result) {
        StringBuilder out = new StringBuilder();
        out.append(header(result)).append("\n\n");
        if (result.top().isPresent()) {
            root(out, result.top().get(), result.chain(), result.topIsSymptom());
            WindowTableRenderer.render(new Evidence(result.caseFile()), result.chain()).ifPresent(t -> out.append('\n').append(t));
        } else {
            long notAssessed = count(result, Verdict.NOT_ASSESSED);
            long judged = result.findings().size() - notAssessed;
            para(out, "", judged == 0
                    ? "Nothing to judge: none of the " + result.findings().size() + " hypotheses found its evidence in this case file."
                    : "No root cause found: " + judged + " of " + result.findings().size()
                    + " hypotheses judged on evidence, none WARN or CRITICAL.", 0);
        }
        out.append('\n');
        table(out, result.findings());
        return out.toString();
    }

    private static String header(Diagnosis.Result r) {
        Evidence ev = new Evidence(r.caseFile());
        StringBuilder h = new StringBuilder("culprit verdict — case " + r.caseFile().dir().getFileName());
        String source = ev.info().source();
        double secs = ev.observedSeconds(), req = ev.requestCount();
        h.append(" (").append(source == null ? "unknown source" : source);
        if (Double.isFinite(secs)) h.append(", ").append(Fmt.num(secs)).append(" s observed");
        if (Double.isFinite(req)) h.append(", ").append(Fmt.num(req)).append(" requests");
        return cut(h.append(')').toString());
    }

    private static void root(StringBuilder out, Finding f, List<Finding> chain, boolean symptom) {
        out.append(cut((symptom ? "#1 FINDING, NO CAUSE IDENTIFIED [" : "#1 ROOT CAUSE [") + f.severity() + "] " + f.id() + ": "
                + f.title())).append('\n');
        para(out, "", f.summary(), 2);
        if (f.culprit() != null) para(out, "culprit", f.culprit(), 2);
        if (chain.size() > 1) para(out, "chain", chain.stream().map(Finding::id).collect(Collectors.joining(" → ")), 2);
        if (f.explanation() != null) para(out, "why", f.explanation(), 2);
        if (f.fix() != null) para(out, "fix", f.fix(), 2);
        if (f.confirm() != null) para(out, "confirm", f.confirm(), 2);
        if (symptom) para(out, "note", "this is an effect; none of the hypotheses checked explains it (see NOT_ASSESSED"
                + " below for evidence that was not collected).", 2);
    }

    // "label:" in a fixed column so the texts line up; label "" means a plain indented paragraph.
    private static void para(StringBuilder out, String label, String text, int indent) {
        String pad = " ".repeat(indent + (label.isEmpty() ? 0 : LABEL));
        List<String> lines = TextWrap.wrap(text, WIDTH - pad.length());
        for (int i = 0; i < lines.size(); i++) {
            String lead = i == 0 && !label.isEmpty()
                    ? " ".repeat(indent) + String.format(Locale.ROOT, "%-" + LABEL + "s", label + ":") : pad;
            out.append(lead).append(lines.get(i)).append('\n');
        }
    }

    // One line per hypothesis, its key evidence indented below: long frames and SQL need the width.
    private static void table(StringBuilder out, List<Finding> findings) {
        String fmt = "%-3s %-13s %-9s %s";
        out.append("Hypotheses, ranked (").append(findings.size()).append(" checked)\n");
        out.append(String.format(Locale.ROOT, fmt, "#", "verdict", "severity", "hypothesis / key evidence")).append('\n');
        int n = 1;
        for (Finding f : findings) {
            out.append(cut(String.format(Locale.ROOT, fmt, n++, f.verdict().name(), f.severity().name(),
                    f.id() + (f.title() == null ? "" : " — " + f.title())))).append('\n');
            for (String line : TextWrap.wrap(f.summary(), WIDTH - EVIDENCE_INDENT, EVIDENCE_LINES)) {
                out.append(" ".repeat(EVIDENCE_INDENT)).append(line).append('\n');
            }
        }
    }

    private static long count(Diagnosis.Result r, Verdict v) {
        return r.findings().stream().filter(f -> f.verdict() == v).count();
    }

    private static String cutTo(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 1) + "…";
    }

    private static String cut(String s) {
        return cutTo(s, WIDTH);
    }
}
