package io.culprit.agent.profile;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * An async-profiler recording read back: collapsed stacks, sample count, and the engine that
 * really ran. async-profiler writes its settings into the recording as {@code jdk.ActiveSetting}
 * events, {@code engine} among them ({@code perf_events}, {@code ctimer}, ...): that is the
 * authority on a {@code cpu} profile's fallback, not a guess made before starting.
 */
final class Profile {
    private static final Set<String> CPU = Set.of("jdk.ExecutionSample");
    private static final Set<String> WALL = Set.of("profiler.WallClockSample");
    private static final Set<String> ALLOC = Set.of("jdk.ObjectAllocationInNewTLAB", "jdk.ObjectAllocationOutsideTLAB",
            "jdk.ObjectAllocationSample");
    private static final Set<String> LOCK = Set.of("jdk.JavaMonitorEnter", "jdk.ThreadPark");

    final Map<String, Long> collapsed = new HashMap<>();
    final Map<String, String> settings = new LinkedHashMap<>();
    long samples;

    /**
     * The profile of {@code event} (cpu, ctimer, itimer, wall, alloc, lock) in the recording. Only
     * that event's samples count: a CPU profile started with {@code --lock} also holds lock
     * events, which belong in the raw recording, not in the CPU flame graph.
     */
    static Profile read(Path jfr, String event) throws IOException {
        Set<String> kinds = "wall".equals(event) ? WALL : "alloc".equals(event) ? ALLOC : "lock".equals(event) ? LOCK : CPU;
        Profile p = new Profile();
        try (RecordingFile f = new RecordingFile(jfr)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                String type = e.getEventType().getName();
                if (type.equals("jdk.ActiveSetting")) {
                    p.settings.putIfAbsent(e.getString("name"), e.getString("value"));
                } else if (kinds.contains(type)) {
                    String stack = stack(e.getStackTrace());
                    if (stack.isEmpty()) continue;
                    long n = weight(e);
                    p.collapsed.merge(stack, n, Long::sum);
                    p.samples += n;
                }
            }
        }
        return p;
    }

    /**
     * async-profiler batches wall-clock samples of an idle thread whose stack did not change into
     * one event with a {@code samples} count (often 50-100 in one event); counting events would
     * shrink idle threads against running ones. Its converter weights them the same way.
     */
    private static long weight(RecordedEvent e) {
        if (!e.hasField("samples")) return 1;
        Object n = e.getValue("samples");
        return n instanceof Number ? Math.max(1, ((Number) n).longValue()) : 1;
    }

    /** Root first, frames joined by ';': the flame graph input format. */
    static String stack(RecordedStackTrace st) {
        if (st == null) return "";
        List<RecordedFrame> frames = st.getFrames();
        StringBuilder sb = new StringBuilder();
        for (int i = frames.size() - 1; i >= 0; i--) {
            if (sb.length() > 0) sb.append(';');
            sb.append(frame(frames.get(i)));
        }
        return sb.toString();
    }

    /** Java frames as {@code class.method}; native ones by symbol, kernel ones marked {@code _[k]} as async-profiler does. */
    static String frame(RecordedFrame f) {
        if (f.getMethod() == null) return "[unknown]";
        String name = f.getMethod().getName();
        // By frame type, not isJavaFrame(): JDK 17 answers true for every frame.
        String kind = f.getType();
        if ("Kernel".equals(kind)) return name + "_[k]";
        if ("Native".equals(kind) || "C++".equals(kind)) return name;
        String type = f.getMethod().getType() == null ? "" : f.getMethod().getType().getName();
        return type.isEmpty() ? name : type + "." + name;
    }

    /** {@code engine} as async-profiler recorded it, or null for a recording that did not say. */
    String engine() {
        return settings.get("engine");
    }

    void writeCollapsed(Path out) throws IOException {
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            for (Map.Entry<String, Long> e : collapsed.entrySet()) w.write(e.getKey() + " " + e.getValue() + "\n");
        }
    }

    /** Frames by the share of samples they appear in (once per stack): the widest boxes of the flame graph. */
    List<Map.Entry<String, Long>> widest(int n) {
        Map<String, Long> total = new HashMap<>();
        for (Map.Entry<String, Long> e : collapsed.entrySet()) {
            for (String f : new HashSet<>(List.of(e.getKey().split(";")))) total.merge(f, e.getValue(), Long::sum);
        }
        return top(total, n);
    }

    /** Frames by samples on top of the stack: where the time is spent itself. */
    List<Map.Entry<String, Long>> hottest(int n) {
        Map<String, Long> self = new HashMap<>();
        for (Map.Entry<String, Long> e : collapsed.entrySet()) {
            String s = e.getKey();
            self.merge(s.substring(s.lastIndexOf(';') + 1), e.getValue(), Long::sum);
        }
        return top(self, n);
    }

    private static List<Map.Entry<String, Long>> top(Map<String, Long> m, int n) {
        List<Map.Entry<String, Long>> l = new ArrayList<>(m.entrySet());
        l.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
        return l.subList(0, Math.min(n, l.size()));
    }
}
