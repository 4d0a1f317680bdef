package io.culprit.report.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The order and headings of evidence tables: what a reader asks first (what was thrown, which
 * calls were slow, what was built per request, who held the lock), then the rest by name.
 */
public final class TableOrder {
    private static final List<String> ORDER = List.of("exceptions", "calls", "beans", "construction", "locks",
            "db-locks", "classloading", "cpu-hotspots", "routes", "idle-gap", "logging", "thread-cpu",
            "gc-collectors", "heap-config");
    private static final Map<String, String> TITLES = Map.ofEntries(
            Map.entry("exceptions", "Top exceptions"), Map.entry("calls", "Slow calls"),
            Map.entry("beans", "Bean creations"), Map.entry("construction", "Costly constructions"),
            Map.entry("locks", "Lock owners and waiters"), Map.entry("db-locks", "Database lock waits"),
            Map.entry("classloading", "Class loading"), Map.entry("cpu-hotspots", "CPU hot spots"),
            Map.entry("routes", "Routes"), Map.entry("idle-gap", "Latency by idle gap"),
            Map.entry("logging", "Logging"), Map.entry("thread-cpu", "CPU by thread"),
            Map.entry("gc-collectors", "GC collectors"), Map.entry("heap-config", "Heap configuration"));

    private TableOrder() { }

    public static List<String> sorted(List<String> names) {
        List<String> out = new ArrayList<>();
        for (String n : ORDER) if (names.contains(n)) out.add(n);
        for (String n : names) if (!out.contains(n)) out.add(n);
        return out;
    }

    public static String title(String name) {
        return TITLES.getOrDefault(name, "Table " + name);
    }
}
