package io.culprit.jfr.collect;

import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedObject;

/**
 * Table {@code old-objects}: what the objects that outlived the observation were, and which code
 * allocated them, from JFR's leak profiler ({@code jdk.OldObjectSample}). The JVM keeps a small
 * sample (256 by default) of allocations, drops each sample whose object a collection frees, and
 * writes the survivors once, when the recording stops. The JVM samples only while a recording
 * asks for the event, so a diagnosis's samples begin with its recording, after the service's
 * start-up, and include the warm-up's: its queue fills with the first objects that survive and
 * then takes few newer ones (a leak at 200 req/s left 236 of its 242 samples in the 5 s warm-up,
 * 6 in the 15 s measured). Samples allocated after the observation ends are left out. A site is
 * the first frame outside the JDK, as in {@link AllocationCollector}.
 * When the recording searched for paths to GC roots (a {@code cutoff} above 0 in its
 * {@code jdk.ActiveSetting}s: meta {@code paths}), {@code rooted} counts the samples still
 * reachable: a leak's are, garbage that only an old-generation collection would free is not.
 * Without that search every sample reads as unrooted, and the table says what was kept and who
 * made it, not whether it is still held.
 */
public final class OldObjectCollector implements EventCollector {
    private static final int TOP = 10;

    private static final class Sample {
        final long allocatedMs;
        final String site, type;
        final List<String> stack;
        final boolean rooted;

        Sample(long allocatedMs, String site, String type, List<String> stack, boolean rooted) {
            this.allocatedMs = allocatedMs;
            this.site = site;
            this.type = type;
            this.stack = stack;
            this.rooted = rooted;
        }
    }

    private final List<Sample> samples = new ArrayList<>();
    /** When the samples were written: the recording's stop, the end of their lives so far. */
    private long emittedMs = Long.MIN_VALUE;
    /** Whether a recording in the file searched for the samples' paths to GC roots. */
    private boolean paths;

    @Override
    public Set<String> events() {
        return Set.of("jdk.OldObjectSample", "jdk.ActiveSetting");
    }

    @Override
    public void accept(RecordedEvent e) {
        if (e.getEventType().getName().equals("jdk.ActiveSetting")) {
            // Only the leak profiler has a "cutoff"; "0 ns" means no search (culprit.jfc's, JDK's default).
            String value = "cutoff".equals(e.getString("name")) ? e.getString("value") : null;
            if (value != null && !value.trim().startsWith("0")) paths = true;
            return;
        }
        if (!e.hasField("allocationTime")) return;
        List<String> stack = Frames.of(e.getStackTrace());
        for (String f : stack) if (f.startsWith("io.culprit.agent.")) return;  // culprit's own, as in AllocationCollector
        String site = stack.isEmpty() ? "(no stack)" : Frames.method(Frames.topNonJdk(stack));
        boolean rooted = e.hasField("root") && e.getValue("root") != null;
        samples.add(new Sample(e.getInstant("allocationTime").toEpochMilli(), site, type(e), stack, rooted));
        emittedMs = Math.max(emittedMs, EventCollector.epochMs(e));
    }

    private static String type(RecordedEvent e) {
        RecordedObject object = e.hasField("object") ? e.getValue("object") : null;
        RecordedClass c = object == null || !object.hasField("type") ? null : object.getValue("type");
        return c == null ? "?" : AllocationCollector.javaName(c.getName());
    }

    @Override
    public List<Table> tables(Observation o) {
        Map<String, List<Sample>> bySite = new HashMap<>();
        int counted = 0, rootedAll = 0;
        for (Sample s : samples) {
            if (s.allocatedMs > o.endMs()) continue;
            bySite.computeIfAbsent(s.site, k -> new ArrayList<>()).add(s);
            counted++;
            if (s.rooted) rootedAll++;
        }
        if (samples.isEmpty()) return List.of();
        List<Map.Entry<String, List<Sample>>> sorted = new ArrayList<>(bySite.entrySet());
        sorted.sort((a, b) -> Integer.compare(b.getValue().size(), a.getValue().size()));
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map.Entry<String, List<Sample>> e : sorted.subList(0, Math.min(TOP, sorted.size()))) {
            List<Sample> ss = e.getValue();
            Map<String, Integer> types = new HashMap<>();
            StackCounter stacks = new StackCounter();
            long[] allocated = new long[ss.size()];
            int rooted = 0;
            for (int i = 0; i < ss.size(); i++) {
                if (ss.get(i).rooted) rooted++;
                types.merge(ss.get(i).type, 1, Integer::sum);
                stacks.add(ss.get(i).stack);
                allocated[i] = ss.get(i).allocatedMs;
            }
            Arrays.sort(allocated);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("site", e.getKey());
            r.put("topClass", types.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null));
            r.put("samples", ss.size());
            r.put("share", (double) ss.size() / counted);
            r.put("rooted", rooted);
            // When in the observation the survivors were allocated: young garbage no collection reached
            // yet sits at its end. The JVM's queue fills with the first survivors and then takes a new
            // candidate only over the sample that stands for the fewest bytes, so a leak's sit early.
            r.put("firstS", (allocated[0] - o.startMs()) / 1000.0);  // negative: before the observation
            r.put("medianS", (allocated[allocated.length / 2] - o.startMs()) / 1000.0);
            r.put("stack", stacks.top());
            rows.add(r);
        }
        Map<String, Object> meta = o.meta();
        meta.put("samples", counted);
        meta.put("samplesAll", samples.size());
        meta.put("paths", paths || rootedAll > 0);  // JFR.dump path-to-gc-roots=true searches without the setting
        meta.put("rooted", rootedAll);
        if (emittedMs != Long.MIN_VALUE) meta.put("emittedMs", emittedMs);
        return List.of(new Table("old-objects", List.of("site", "topClass", "samples", "share", "rooted", "firstS", "medianS", "stack"), rows, meta));
    }
}
