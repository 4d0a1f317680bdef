package io.culprit.diagnosis.internal;

import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the rules' {@code explains} into verdicts. Only problems (WARN, CRITICAL) take part: an
 * edge to an OK finding means nothing. Roots are problems that no other problem explains; a
 * cycle with no root contributes its best-ranked member as one. The best root is CONFIRMED (a
 * cause beats a symptom such as tail latency), the other problems CONTRIBUTING, INFO findings
 * CONTRIBUTING (measured but minor), and OK findings keep the rule's RULED_OUT or NOT_ASSESSED.
 */
public final class CausalGraph {
    private static final Comparator<Finding> BY_WEIGHT = Comparator
            .comparing(Finding::severity).thenComparingDouble(Finding::score).reversed()
            .thenComparing(Finding::id);

    private final Map<String, Finding> problems = new LinkedHashMap<>();
    private final Map<String, List<String>> edges = new LinkedHashMap<>();
    private final List<Finding> all;
    private final Set<String> symptoms;
    private final String top;

    /** @param symptoms ids of rules that measure effects; causes are preferred over them as roots */
    public CausalGraph(List<Finding> findings, Set<String> symptoms) {
        this.all = findings;
        this.symptoms = symptoms;
        for (Finding f : findings) if (f.isProblem()) problems.put(f.id(), f);
        Set<String> explained = new HashSet<>();
        for (Finding f : problems.values()) {
            List<String> to = new ArrayList<>();
            for (String id : f.explains()) {
                if (!id.equals(f.id()) && problems.containsKey(id) && !to.contains(id)) {
                    to.add(id);
                    explained.add(id);
                }
            }
            edges.put(f.id(), to);
        }
        List<String> roots = roots(explained);
        this.top = roots.stream().map(problems::get).min(rootOrder()).map(Finding::id).orElse(null);
    }

    private List<String> roots(Set<String> explained) {
        List<String> roots = new ArrayList<>();
        for (String id : problems.keySet()) if (!explained.contains(id)) roots.add(id);
        // Break cycles: any problem not reachable from a root makes its best member a root.
        Set<String> reached = new HashSet<>();
        for (String r : roots) reached.addAll(reach(r));
        while (reached.size() < problems.size()) {
            Finding best = problems.values().stream().filter(f -> !reached.contains(f.id())).min(BY_WEIGHT).orElseThrow();
            roots.add(best.id());
            reached.addAll(reach(best.id()));
        }
        return roots;
    }

    /** The confirmed root, or null when nothing is a problem. */
    public String top() {
        return top;
    }

    // Causes before symptoms; then the worst severity of what they explain, then their own weight.
    private Comparator<Finding> rootOrder() {
        Comparator<Finding> causeFirst = Comparator.comparing(f -> symptoms.contains(f.id()));
        Comparator<Finding> chainSeverity = Comparator.comparing(f -> reach(f.id()).stream()
                .map(id -> problems.get(id).severity()).max(Comparator.naturalOrder()).orElse(Severity.OK));
        return causeFirst.thenComparing(chainSeverity.reversed()).thenComparing(BY_WEIGHT);
    }

    private Set<String> reach(String from) {
        Set<String> seen = new HashSet<>();
        List<String> todo = new ArrayList<>(List.of(from));
        while (!todo.isEmpty()) {
            String id = todo.remove(todo.size() - 1);
            if (seen.add(id)) todo.addAll(edges.getOrDefault(id, List.of()));
        }
        return seen;
    }

    /** All findings with verdicts decided, best first. */
    public List<Finding> ranked() {
        List<Finding> out = new ArrayList<>();
        for (Finding f : all) out.add(f.withVerdict(verdict(f)));
        out.sort(Comparator.comparingInt((Finding f) -> f.verdict().ordinal()).thenComparing(BY_WEIGHT));
        return out;
    }

    private Verdict verdict(Finding f) {
        if (f.id().equals(top) && problems.containsKey(f.id())) return Verdict.CONFIRMED;
        if (f.isProblem() || f.severity() == Severity.INFO) return Verdict.CONTRIBUTING;
        return f.verdict() == Verdict.NOT_ASSESSED ? Verdict.NOT_ASSESSED : Verdict.RULED_OUT;
    }

    /**
     * The top root, then at each step its most direct effect: among what it explains, a problem
     * that no sibling explains in turn (pool-starvation before the tail latency both cause),
     * heaviest first.
     */
    public List<Finding> chain() {
        List<Finding> chain = new ArrayList<>();
        if (top == null) return chain;
        Set<String> seen = new HashSet<>();
        String at = top;
        while (at != null && seen.add(at)) {
            chain.add(problems.get(at).withVerdict(chain.isEmpty() ? Verdict.CONFIRMED : Verdict.CONTRIBUTING));
            List<String> next = new ArrayList<>(edges.get(at));
            next.removeIf(seen::contains);
            List<String> direct = new ArrayList<>(next);
            for (String sibling : next) {
                Set<String> below = reach(sibling);
                below.remove(sibling);
                direct.removeAll(below);
            }
            List<String> pick = direct.isEmpty() ? next : direct;
            at = pick.stream().map(problems::get).min(BY_WEIGHT).map(Finding::id).orElse(null);
        }
        return chain;
    }
}
