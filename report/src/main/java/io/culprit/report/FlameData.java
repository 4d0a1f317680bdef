package io.culprit.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flame trees in the page's compact form ({@code n} name, {@code v} samples, {@code b} baseline
 * samples, {@code c} children): one-letter keys keep a deep profile's page small.
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
        m.put("n", n.name());
        m.put("v", n.value());
        if (n.before() != null) m.put("b", n.before());
        if (!n.children().isEmpty()) {
            List<Object> c = new ArrayList<>();
            for (Report.FlameNode k : n.children()) c.add(node(k));
            m.put("c", c);
        }
        return m;
    }
}
