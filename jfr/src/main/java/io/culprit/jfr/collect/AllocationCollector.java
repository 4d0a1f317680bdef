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
 * Table {@code alloc-sites}: who allocates, from JFR's throttled allocation samples
 * ({@code jdk.ObjectAllocationSample}, JDK 16+; each sample's {@code weight} stands for the bytes
 * allocated since the thread's previous sample). A site is the first frame outside the JDK:
 * {@code StringBuilder} growth is charged to the code that builds the string. GC pressure is
 * the heap's problem; this names the code that feeds it.
 */
public final class AllocationCollector implements EventCollector {
    private static final int TOP = 20;

    private static final class Site {
        long bytes, samples;
        final Map<String, long[]> classes = new HashMap<>();
        final StackCounter stacks = new StackCounter();
    }

    private final Map<String, Site> sites = new HashMap<>();
    private long totalBytes;

    @Override
    public Set<String> events() {
        return Set.of("jdk.ObjectAllocationSample");
    }

    @Override
    public void accept(RecordedEvent e) {
        List<String> stack = Frames.of(e.getStackTrace());
        if (stack.isEmpty() || ownCode(e, stack)) return;
        long weight = e.getLong("weight");
        String site = Frames.method(Frames.topNonJdk(stack));
        Site s = sites.computeIfAbsent(site, k -> new Site());
        s.bytes += weight;
        s.samples++;
        RecordedClass c = e.getValue("objectClass");
        s.classes.computeIfAbsent(c == null ? "?" : javaName(c.getName()), k -> new long[1])[0] += weight;
        s.stacks.add(stack);
        totalBytes += weight;
    }

    /**
     * culprit's own work in the target (stopping a recording, writing evidence) allocates too, and
     * the recording sees it: it is not the application's allocation.
     */
    private static boolean ownCode(RecordedEvent e, List<String> stack) {
        jdk.jfr.consumer.RecordedThread t = e.getThread();
        if (t != null && t.getJavaName() != null && t.getJavaName().startsWith("culprit-")) return true;
        for (String f : stack) if (f.startsWith("io.culprit.agent.")) return true;
        return false;
    }

    /** JFR names arrays by descriptor ({@code [B}, {@code [Ljava.lang.String;}): print them as Java does. */
    static String javaName(String name) {
        int dims = 0;
        while (dims < name.length() && name.charAt(dims) == '[') dims++;
        if (dims == 0) return name;
        String elem = name.substring(dims);
        switch (elem) {
            case "B": elem = "byte"; break;
            case "C": elem = "char"; break;
            case "I": elem = "int"; break;
            case "J": elem = "long"; break;
            case "S": elem = "short"; break;
            case "Z": elem = "boolean"; break;
            case "F": elem = "float"; break;
            case "D": elem = "double"; break;
            default: elem = elem.startsWith("L") && elem.endsWith(";") ? elem.substring(1, elem.length() - 1) : elem;
        }
        return elem + "[]".repeat(dims);
    }

    @Override
    public List<Table> tables(Observation o) {
        List<Map.Entry<String, Site>> sorted = new ArrayList<>(sites.entrySet());
        sorted.sort((a, b) -> Long.compare(b.getValue().bytes, a.getValue().bytes));
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map.Entry<String, Site> e : sorted.subList(0, Math.min(TOP, sorted.size()))) {
            Site s = e.getValue();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("site", e.getKey());
            r.put("topClass", s.classes.entrySet().stream().max(Map.Entry.comparingByValue((x, y) -> Long.compare(x[0], y[0])))
                    .map(Map.Entry::getKey).orElse(null));
            r.put("mb", s.bytes / 1e6);
            r.put("share", totalBytes > 0 ? (double) s.bytes / totalBytes : Double.NaN);
            r.put("samples", s.samples);
            r.put("stack", s.stacks.top());
            rows.add(r);
        }
        Map<String, Object> meta = o.meta();
        meta.put("totalMb", totalBytes / 1e6);
        return List.of(new Table("alloc-sites", List.of("site", "topClass", "mb", "share", "samples", "stack"), rows, meta));
    }
}
