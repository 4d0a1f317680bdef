package io.culprit.report.internal;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The causal chain as the diagnosis engine shows it, recomputed from {@code findings.json}
 * alone (the report reads case files, it does not run rules): from the CONFIRMED root, at each
 * step the most direct problem it explains, the best-ranked when several are.
 */
public final class Verdicts {
    /**
     * Rules that measure effects, not mechanisms (docs/CASEFILE.md, Rule.symptom()): asked of the
     * engine's rules rather than listed here, so the page and the terminal cannot disagree.
     */
    private static final Set<String> SYMPTOMS = Diagnosis.rules().stream().filter(Rule::symptom).map(Rule::id)
            .collect(Collectors.toUnmodifiableSet());

    private Verdicts() { }

    public static boolean isSymptom(String id) {
        return SYMPTOMS.contains(id);
    }

    public static List<String> chain(Finding top, List<Finding> ranked) {
        Map<String, Finding> problems = new LinkedHashMap<>();
        for (Finding f : ranked) if (f.isProblem()) problems.putIfAbsent(f.id(), f);
        List<String> chain = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        String at = top.id();
        while (at != null && seen.add(at)) {
            chain.add(at);
            Finding f = problems.get(at);
            List<String> next = new ArrayList<>();
            if (f != null) for (String e : f.explains()) if (problems.containsKey(e) && !seen.contains(e)) next.add(e);
            List<String> direct = new ArrayList<>(next);
            for (String sibling : next) {
                Set<String> below = reach(sibling, problems);
                below.remove(sibling);
                direct.removeAll(below);
            }
            List<String> pick = direct.isEmpty() ? next : direct;
            at = problems.keySet().stream().filter(pick::contains).findFirst().orElse(null);
        }
        return chain;
    }

    private static Set<String> reach(String from, Map<String, Finding> problems) {
        Set<String> seen = new HashSet<>();
        List<String> todo = new ArrayList<>(List.of(from));
        while (!todo.isEmpty()) {
            String id = todo.remove(todo.size() - 1);
            if (!seen.add(id)) continue;
            Finding f = problems.get(id);
            if (f != null) for (String e : f.explains()) if (problems.containsKey(e)) todo.add(e);
        }
        return seen;
    }

    /** The lowest-ranked row of {@code tables/<name>} any finding cites (as evidence or as a number's source), or -1. */
    public static int maxRowReferenced(List<Finding> findings, String table) {
        int max = -1;
        String prefix = "tables/" + table + "#";
        for (Finding f : findings) {
            List<String> refs = new ArrayList<>(f.evidence());
            for (Finding.NumberRef n : f.numbers()) refs.add(n.ref());
            for (String ref : refs) {
                if (!ref.startsWith(prefix)) continue;
                try {
                    max = Math.max(max, Integer.parseInt(ref.substring(prefix.length())));
                } catch (NumberFormatException e) {
                    // a column ref rather than a row: the table itself is the target
                }
            }
        }
        return max;
    }
}
