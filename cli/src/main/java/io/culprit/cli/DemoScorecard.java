package io.culprit.cli;

import io.culprit.model.Finding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The end of a demo of several scenarios: per scenario, what the faulty twin's diagnosis put first,
 * whether that finding names one of the ground truth's culprit classes or frames, and what the
 * fixed twin's put first. Only what the runs printed, side by side: which rule a ground truth
 * "should" raise is not the demo's to judge (the rules know nothing of the lab).
 */
final class DemoScorecard {

    private DemoScorecard() {
    }

    static String render(List<DemoCommand.Run> runs) {
        Map<String, String[]> rows = new LinkedHashMap<>();
        for (DemoCommand.Run r : runs) {
            String[] row = rows.computeIfAbsent(r.truth().name(), n -> new String[] {n, "", "", ""});
            if (r.fixed()) {
                row[3] = verdict(r.result().top());
            } else {
                row[1] = verdict(r.result().top());
                row[2] = namesCulprit(r);
            }
        }
        StringBuilder out = new StringBuilder("\n== scorecard ==\n");
        String fmt = "%-22s %-32s %-18s %s%n";
        out.append(String.format(Locale.ROOT, fmt, "scenario", "faulty twin: first finding", "names the culprit", "fixed twin: first finding"));
        for (String[] row : rows.values()) {
            out.append(String.format(Locale.ROOT, fmt, row[0], row[1].isEmpty() ? "(not run)" : row[1], row[2],
                    row[3].isEmpty() ? "(not run)" : row[3]).stripTrailing()).append('\n');
        }
        return out.toString();
    }

    private static String verdict(Optional<Finding> top) {
        return top.map(f -> f.id() + " " + f.severity()).orElse("no problem found");
    }

    /** yes/no against the ground truth's culprit classes and frames; "-" where it names none (healthy). */
    private static String namesCulprit(DemoCommand.Run r) {
        List<String> culprits = new ArrayList<>();
        r.truth().json().path("culprit").path("classes").forEach(c -> culprits.add(c.asText()));
        r.truth().json().path("culprit").path("frames").forEach(f -> culprits.add(f.asText()));
        if (culprits.isEmpty()) return "-";
        Optional<Finding> top = r.result().top();
        if (top.isEmpty()) return "no";
        String named = (top.get().culprit() == null ? "" : top.get().culprit()) + " " + top.get().summary();
        return culprits.stream().anyMatch(named::contains) ? "yes" : "no";
    }
}
