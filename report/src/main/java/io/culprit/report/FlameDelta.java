package io.culprit.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The frames of a differential tree whose inclusive samples moved most, summed per frame name. */
final class FlameDelta {
    private FlameDelta() { }

    /** frame → {before, after} samples (before already scaled to the after total). */
    static Map<String, double[]> movers(Report.FlameNode root, int n) {
        Map<String, double[]> byName = new HashMap<>();
        for (Report.FlameNode c : root.children()) walk(c, byName, new java.util.HashSet<>());
        List<Map.Entry<String, double[]>> all = new ArrayList<>(byName.entrySet());
        all.sort(Comparator.comparingDouble((Map.Entry<String, double[]> e) -> -Math.abs(e.getValue()[1] - e.getValue()[0])));
        Map<String, double[]> out = new LinkedHashMap<>();
        for (Map.Entry<String, double[]> e : all.subList(0, Math.min(n, all.size()))) out.put(e.getKey(), e.getValue());
        return out;
    }

    // A frame recursing into itself counts once per path, or its share would exceed 100%.
    private static void walk(Report.FlameNode node, Map<String, double[]> acc, java.util.Set<String> onPath) {
        boolean first = onPath.add(node.name());
        if (first) {
            double[] v = acc.computeIfAbsent(node.name(), k -> new double[2]);
            v[0] += node.before() == null ? 0 : node.before();
            v[1] += node.value();
        }
        for (Report.FlameNode c : node.children()) walk(c, acc, onPath);
        if (first) onPath.remove(node.name());
    }
}
