package io.culprit.agent.jfr;

import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Tells the agent's own code from the application's: rows whose site or caller is a class of
 * culprit's isolated loader (named "culprit") are the tool observing itself, not evidence.
 */
final class OwnCode {
    private OwnCode() { }

    static boolean isAgent(Object frame) {
        if (!(frame instanceof String)) return false;
        String f = (String) frame;
        int colon = f.lastIndexOf(':');
        String method = colon > 0 ? f.substring(0, colon) : f;
        int dot = method.lastIndexOf('.');
        if (dot <= 0 || !f.startsWith("io.culprit.")) return false;
        try {
            ClassLoader l = Class.forName(method.substring(0, dot), false, OwnCode.class.getClassLoader()).getClassLoader();
            return l != null && "culprit".equals(l.getName());
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The table without the agent's own rows (by {@code column}). */
    static List<Map<String, Object>> withoutAgent(Table t, String column) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> r : t.rows()) if (!isAgent(r.get(column))) out.add(r);
        return out;
    }
}
