package io.culprit.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flame trees in the page's compact form ({@code n} name, {@code v} samples, {@code b} baseline
 * samples, {@code w} layout width when not {@code v}, {@code c} children): one-letter keys keep
 * a deep profile's page small.
 */
final class FlameData {
    private FlameData() { }

    static List<Map<String, Object>> compact(List<Report.Flame> flames) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Report.Flame f : flames) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", f.kind());
            m.put("samples", f.samples());
            m.put("root", node(f.root()));
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> node(Report.FlameNode n) {
        Map<String, Object> m = new LinkedHashMap<>();
        node(n, m);
        return m;
    }

    /**
     * Fills {@code m} with {@code n} and returns its layout width in samples. A normal graph is
     * laid out by samples. A differential one is laid out on the union of both profiles: a frame
     * is as wide as the larger of its two shares ({@code w}, written when it exceeds {@code v}),
     * and never narrower than its children side by side. Laid out on the after profile alone, as
     * flamegraph.pl's difffolded graphs are, a path the fix removed has no width at all, and what
     * the fix removed is the point of the comparison.
     */
    private static double node(Report.FlameNode n, Map<String, Object> m) {
        m.put("n", n.name());
        m.put("v", n.value());
        if (n.before() != null) m.put("b", n.before());
        double kids = 0;
        if (!n.children().isEmpty()) {
            List<Object> c = new ArrayList<>();
            for (Report.FlameNode k : n.children()) {
                Map<String, Object> km = new LinkedHashMap<>();
                kids += node(k, km);
                c.add(km);
            }
            m.put("c", c);
        }
        if (n.before() == null) return n.value();
        double w = Math.max(Math.max(n.value(), n.before()), kids);
        if (w > n.value()) m.put("w", Math.round(w * 10) / 10.0);
        return w;
    }
}
