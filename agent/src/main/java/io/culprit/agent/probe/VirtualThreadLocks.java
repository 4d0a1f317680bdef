package io.culprit.agent.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.culprit.jfr.collect.LockCollector;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Virtual threads blocked entering a monitor, from the JVM's own thread dump. From JDK 24 a
 * virtual thread that cannot enter a {@code synchronized} block unmounts and waits without
 * occupying a carrier, and JFR records no {@code jdk.JavaMonitorEnter} for that wait: a service
 * on virtual threads whose handler called a 20 ms partner inside a monitor served 45 requests a
 * second to 8 clients, and its recording held 29 monitor events, none of them the requests'.
 * HotSpot's JSON thread dump ({@code HotSpotDiagnosticMXBean.dumpThreads}) lists every virtual
 * thread with its state, the monitor it is blocked on and the monitors each thread owns. One
 * dump a second, while the container runs requests on virtual threads, samples those waits:
 * each blocked thread seen stands for a second of blocking, as a sampling profiler counts.
 *
 * <p>The rows have the columns of JFR's {@code locks} table (docs/CASEFILE.md). A dump that
 * takes longer than {@link #MAX_DUMP_MS} stops the sampling: it stops the world's threads only
 * briefly, but its cost grows with the number of threads.
 */
final class VirtualThreadLocks {
    /** A dump this slow (ms) ends the sampling for this collection. */
    static final long MAX_DUMP_MS = 200;
    private static final int STACK = 24;

    /** This instance's breaker: {@link #MAX_DUMP_MS} but in tests of what the samples hold. */
    private final long maxDumpMs;
    private final Map<String, Group> groups = new LinkedHashMap<>();
    private final double intervalMs;
    /** Made at the first sample, so that probes on a service without virtual threads load nothing for it. */
    private Dumper dumper;
    private boolean stopped;
    private String stopReason;

    private static final class Group {
        final String lockClass;
        long seen;
        final Map<List<String>, Long> waiters = new HashMap<>();
        final Map<List<String>, Long> owners = new HashMap<>();
        final Map<String, Long> ownerNames = new HashMap<>();

        Group(String lockClass) {
            this.lockClass = lockClass;
        }
    }

    /** {@code HotSpotDiagnosticMXBean.dumpThreads(file, JSON)}, reached by reflection: the agent compiles for JDK 11. */
    private static final class Dumper {
        final Method dump;
        final Object bean, json;
        final ObjectMapper mapper = new ObjectMapper();

        Dumper() throws ReflectiveOperationException {
            Class<? extends java.lang.management.PlatformManagedObject> type = Class.forName("com.sun.management.HotSpotDiagnosticMXBean")
                    .asSubclass(java.lang.management.PlatformManagedObject.class);
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object format = Enum.valueOf((Class) Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat"), "JSON");
            dump = type.getMethod("dumpThreads", String.class, format.getClass());
            bean = ManagementFactory.getPlatformMXBean(type);
            json = format;
        }

        void dumpTo(Path file) throws ReflectiveOperationException {
            dump.invoke(bean, file.toString(), json);
        }
    }

    /** @param intervalMs the time between two samples, which each blocked thread seen stands for */
    VirtualThreadLocks(double intervalMs) {
        this(intervalMs, MAX_DUMP_MS);
    }

    /** With another breaker: tests of what the samples hold, on a machine whose dumps may be slow. */
    VirtualThreadLocks(double intervalMs, long maxDumpMs) {
        this.intervalMs = intervalMs;
        this.maxDumpMs = maxDumpMs;
    }

    /** Takes one dump and adds its blocked virtual threads; once stopped, or where there are no JSON dumps (before JDK 21), nothing. */
    void sample() {
        if (stopped) return;
        Path file = null;
        try {
            if (dumper == null) dumper = new Dumper();
            file = Files.createTempFile("culprit-threads", ".json");
            Files.delete(file);  // dumpThreads will not overwrite
            long start = System.nanoTime();
            dumper.dumpTo(file);
            long ms = (System.nanoTime() - start) / 1_000_000;
            add(dumper.mapper.readTree(file.toFile()));
            if (ms > maxDumpMs) stop("a thread dump took " + ms + " ms");
        } catch (ReflectiveOperationException | IOException | RuntimeException e) {
            stop("thread dump failed: " + e);
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }

    private void stop(String why) {
        stopped = true;
        stopReason = why;
    }

    /** Why sampling stopped early, or null. */
    String stopReason() {
        return stopReason;
    }

    /** Adds one dump (HotSpot's JSON format, JDK 21+; state and blockedOn from JDK 25). */
    void add(JsonNode dumpJson) {
        Map<String, JsonNode> ownerOf = new HashMap<>();
        List<JsonNode> blocked = new ArrayList<>();
        for (JsonNode container : dumpJson.path("threadDump").path("threadContainers")) {
            for (JsonNode t : container.path("threads")) {
                for (JsonNode owned : t.path("monitorsOwned")) {
                    for (JsonNode lock : owned.path("locks")) ownerOf.put(lock.asText(), t);
                }
                if (t.path("virtual").asBoolean() && "BLOCKED".equals(t.path("state").asText()) && t.hasNonNull("blockedOn")) {
                    blocked.add(t);
                }
            }
        }
        for (JsonNode t : blocked) {
            String lock = t.path("blockedOn").asText();
            int at = lock.lastIndexOf('@');
            Group g = groups.computeIfAbsent(at > 0 ? lock.substring(0, at) : lock, Group::new);
            g.seen++;
            g.waiters.merge(stack(t), 1L, Long::sum);
            JsonNode owner = ownerOf.get(lock);
            if (owner != null) {
                g.owners.merge(stack(owner), 1L, Long::sum);
                g.ownerNames.merge(owner.path("name").asText(), 1L, Long::sum);
            }
        }
    }

    /** Rows of the {@code locks} table's columns, most blocked first. */
    List<Map<String, Object>> rows() {
        List<Group> sorted = new ArrayList<>(groups.values());
        sorted.sort((a, b) -> Long.compare(b.seen, a.seen));
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Group g : sorted) {
            rows.add(LockCollector.row(g.lockClass, "monitor", g.seen, g.seen * intervalMs, top(g.ownerNames), top(g.owners),
                    top(g.waiters), 0));
        }
        return rows;
    }

    /** Whether any blocked virtual thread was seen. */
    boolean isEmpty() {
        return groups.isEmpty();
    }

    private static <K> K top(Map<K, Long> counts) {
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }

    /** The dump's frames as culprit writes frames: "java.base/a.B.m(B.java:7)" becomes "a.B.m:7". */
    private static List<String> stack(JsonNode t) {
        List<String> out = new ArrayList<>();
        for (JsonNode f : t.path("stack")) {
            if (out.size() == STACK) break;
            out.add(frame(f.asText()));
        }
        return out;
    }

    static String frame(String dumped) {
        int open = dumped.indexOf('(');
        // "java.base/", or a class loader's name and module ("app//"): class names hold no slash.
        String f = dumped.substring(dumped.lastIndexOf('/', open < 0 ? dumped.length() : open) + 1);
        int paren = f.indexOf('(');
        if (paren < 0) return f;
        String where = f.substring(paren + 1, f.length() - (f.endsWith(")") ? 1 : 0));
        int colon = where.lastIndexOf(':');
        return f.substring(0, paren) + (colon >= 0 ? ":" + where.substring(colon + 1) : "");
    }
}
