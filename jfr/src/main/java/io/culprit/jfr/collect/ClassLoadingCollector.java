package io.culprit.jfr.collect;

import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;

/**
 * Table {@code classloading}, kind {@code class-miss}: failed class loads, from the
 * ClassNotFoundException / NoClassDefFoundError throws JFR records, grouped by class name and
 * caller. The caller is the first frame that is neither JDK code nor class-loader machinery
 * (loadClass/findClass, Spring Boot's launcher loaders): the code that asked for the class.
 *
 * <p>Service-loader and resource lookups throw nothing, so JFR cannot see them; the agent's
 * instrumentation adds those rows ({@link #add}). Note that nested loaders (fat jars) may throw
 * several ClassNotFoundExceptions for one miss: counts are throws, not distinct misses. When the
 * exception events are a sample ({@link ThrowSample}), the class-miss counts are scaled like the
 * exceptions table's.
 */
public final class ClassLoadingCollector implements EventCollector {
    private static final class Row {
        final String kind, name, caller;
        long count;
        final StackCounter stacks = new StackCounter();

        Row(String kind, String name, String caller) {
            this.kind = kind;
            this.name = name;
            this.caller = caller;
        }
    }

    private final Map<String, Row> rows = new HashMap<>();
    private final ThrowSample<Row> sample = new ThrowSample<>();
    /** The sample's key for an exception event that is no class miss: counted in the share, in no row. */
    private static final Row OTHER_THROWABLE = new Row("other", "", "");

    @Override
    public Set<String> events() {
        return Set.of("jdk.JavaExceptionThrow", ThrowSample.STATISTICS);
    }

    @Override
    public void accept(RecordedEvent e) {
        if (sample.statistics(e)) return;
        RecordedClass cls = e.getValue("thrownClass");
        if (cls == null) return;
        String type = cls.getName();
        if (!type.equals("java.lang.ClassNotFoundException") && !type.equals("java.lang.NoClassDefFoundError")) {
            // Every event counts towards the share of throwables the events kept: scaled by class misses
            // over all throwables, a few misses among 68 binding exceptions per request read as 68 misses.
            sample.event(e, OTHER_THROWABLE);
            return;
        }
        String message = e.getString("message");
        String name = message == null ? "?" : message.trim().replace('/', '.');
        List<String> stack = Frames.fromThrowSite(Frames.of(e.getStackTrace()));
        sample.event(e, row("class-miss", name, caller(stack), stack, 1));
    }

    /** A lookup seen by other means (instrumentation): kind is service-lookup, resource-lookup or jar-scan. */
    public void add(String kind, String name, String caller, List<String> stack, long count) {
        row(kind, name, caller, stack, count);
    }

    private Row row(String kind, String name, String caller, List<String> stack, long count) {
        Row r = rows.computeIfAbsent(kind + "|" + name + "|" + caller, k -> new Row(kind, name, caller));
        r.count += count;
        r.stacks.add(stack);
        return r;
    }

    /** The code that asked: first frame neither JDK nor class-loader machinery. */
    public static String caller(List<String> stack) {
        for (String f : stack) {
            if (Frames.isJdk(f) || isLoader(f)) continue;
            return f;
        }
        return Frames.topNonJdk(stack);
    }

    private static boolean isLoader(String frame) {
        String m = Frames.method(frame);
        return m.endsWith(".loadClass") || m.endsWith(".findClass") || m.endsWith(".loadClassOrNull")
                || m.contains("ClassLoader.") || m.startsWith("org.springframework.boot.loader.");
    }

    /** Only class misses come from exception events; the agent's lookups are counted whole. */
    private static long count(Row r, Map<Row, Long> misses) {
        return r.kind.equals("class-miss") ? misses.getOrDefault(r, r.count) : r.count;
    }

    @Override
    public List<Table> tables(Observation o) {
        Map<Row, Long> misses = sample.counts(o.seconds());
        List<Row> sorted = new ArrayList<>(rows.values());
        sorted.sort((a, b) -> Long.compare(count(b, misses), count(a, misses)));
        List<Map<String, Object>> out = new ArrayList<>();
        for (Row r : sorted) {
            Map<String, Object> m = new LinkedHashMap<>();
            long count = count(r, misses);
            m.put("kind", r.kind);
            m.put("name", r.name);
            m.put("caller", r.caller);
            m.put("count", count);
            m.put("perSecond", o.perSecond(count));
            m.put("perRequest", o.perRequest(count));
            m.put("stack", r.stacks.top());
            out.add(m);
        }
        return List.of(new Table("classloading", List.of("kind", "name", "caller", "count", "perSecond", "perRequest", "stack"),
                out, o.meta()));
    }
}
