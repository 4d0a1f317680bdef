package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Spring bean creations after the probes started: every {@code createBean(name, definition,
 * args)} of the autowiring bean factory, which is where a prototype-scoped (or request-scoped)
 * bean is built each time it is fetched. Singletons were created at startup and do not show.
 */
final class BeanProbe {

    static final String BEAN_FACTORY = "org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory";

    /** One bean name: its type, scope and creations. */
    static final class Created {
        final String bean;
        volatile String type;
        volatile String scope;
        final LongAdder count = new LongAdder();

        Created(String bean) {
            this.bean = bean;
        }
    }

    final ConcurrentHashMap<String, Created> beans = new ConcurrentHashMap<>();

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        h.add(new Hook(BEAN_FACTORY, "createBean", "(Ljava/lang/String;", Hook.EXIT | Hook.ARG0 | Hook.ARG1 | Hook.RETURNED) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                if (thrown != null || !(arg0 instanceof String)) return;
                Created c = beans.computeIfAbsent((String) arg0, Created::new);
                c.count.increment();
                if (c.type == null) {
                    c.type = returned == null ? null : returned.getClass().getName();
                    Object scope = Reflect.call(arg1, "getScope");
                    c.scope = scope == null || "".equals(scope) ? "singleton" : scope.toString();
                }
            }
        });
        return h;
    }

    /** Rows of table {@code beans}, most created first. */
    List<Map<String, Object>> rows(long requests) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Created c : beans.values()) {
            Map<String, Object> r = new LinkedHashMap<>();
            long n = c.count.sum();
            r.put("bean", c.bean);
            r.put("type", c.type);
            r.put("scope", c.scope);
            r.put("count", n);
            r.put("perRequest", requests > 0 ? (double) n / requests : null);
            rows.add(r);
        }
        rows.sort(Comparator.comparingLong((Map<String, Object> r) -> (Long) r.get("count")).reversed());
        return rows;
    }
}
