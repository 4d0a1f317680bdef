package io.culprit.jfr.collect;

import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;

/**
 * Table {@code jit}: which hot code ran in the interpreter. JFR marks each sampled frame
 * "Interpreted", "JIT compiled", "Inlined" or "Native"; after the warm-up a service's hot methods
 * are compiled, so a method that is on top of many samples and still interpreted is one the JIT
 * will not compile: too large (HotSpot skips methods over 8,000 bytes of bytecode), given up on,
 * or the code cache is full and the compiler stopped. Rows are the top frames' methods with any
 * interpreted sample; {@code meta} adds the code cache's state from {@code jdk.CodeCacheStatistics}
 * and {@code jdk.CodeCacheFull}: {@code fullCount} counts since the JVM started, so a cache that
 * filled before culprit attached still shows.
 */
public final class JitCollector implements EventCollector, SampleCollector {
    static final String INTERPRETED = "Interpreted";
    private static final int TOP = 30;
    private final Map<String, long[]> byMethod = new HashMap<>(); // samples on top, interpreted on top
    private final Map<String, long[]> heaps = new HashMap<>(); // per code heap: fullCount, unallocated, reserved
    private long samples, interpreted, fullEvents, reserved;

    @Override
    public Set<String> events() {
        return Set.of(CpuSample.EVENT, "jdk.CodeCacheStatistics", "jdk.CodeCacheFull", "jdk.CodeCacheConfiguration");
    }

    @Override
    public void accept(RecordedEvent e) {
        String type = e.getEventType().getName();
        if (type.equals(CpuSample.EVENT)) {
            CpuSample s = CpuSample.ofJfr(e);
            if (s != null) sample(s);
        } else if (type.equals("jdk.CodeCacheConfiguration")) {
            reserved = e.getLong("reservedSize");
        } else {
            if (type.equals("jdk.CodeCacheFull")) fullEvents++;
            heap(e);
        }
    }

    @Override
    public void sample(CpuSample s) {
        RecordedFrame top = s.frames.get(0);
        boolean interp = INTERPRETED.equals(top.getType());
        samples++;
        long[] c = byMethod.computeIfAbsent(Frames.method(Frames.format(top)), k -> new long[2]);
        c[0]++;
        if (interp) {
            c[1]++;
            interpreted++;
        }
    }

    /** The latest reading per code heap: the counts only grow, the free space is the state now. */
    private void heap(RecordedEvent e) {
        String type = e.getValue("codeBlobType") == null ? "?" : String.valueOf((Object) e.getValue("codeBlobType"));
        long[] h = heaps.computeIfAbsent(type, k -> new long[] {0, Long.MAX_VALUE, 0});
        h[0] = Math.max(h[0], e.getLong("fullCount"));
        h[1] = e.getLong("unallocatedCapacity");
        h[2] = e.getLong("reservedTopAddress") - e.getLong("startAddress");
    }

    @Override
    public List<Table> tables(Observation o) {
        List<Map.Entry<String, long[]>> sorted = new ArrayList<>(byMethod.entrySet());
        sorted.removeIf(en -> en.getValue()[1] == 0);
        sorted.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map.Entry<String, long[]> en : sorted.subList(0, Math.min(TOP, sorted.size()))) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("frame", en.getKey());
            r.put("samples", en.getValue()[0]);
            r.put("interpreted", en.getValue()[1]);
            rows.add(r);
        }
        Map<String, Object> meta = o.meta();
        meta.put("samples", samples);
        meta.put("interpreted", interpreted);
        long full = fullEvents, tightest = -1, heapReserved = 0;
        for (long[] h : heaps.values()) {
            full = Math.max(full, h[0]);
            // The heap with the least room left for its size: a full one stops the compiler whatever the others hold.
            if (h[1] != Long.MAX_VALUE && h[2] > 0 && (tightest < 0 || (double) h[1] / h[2] < (double) tightest / heapReserved)) {
                tightest = h[1];
                heapReserved = h[2];
            }
        }
        if (!heaps.isEmpty() || fullEvents > 0) meta.put("codeCacheFull", full);
        if (tightest >= 0) {
            meta.put("codeHeapFreeBytes", tightest);
            meta.put("codeHeapBytes", heapReserved);
        }
        if (reserved > 0) meta.put("codeCacheBytes", reserved);
        return List.of(new Table("jit", List.of("frame", "samples", "interpreted"), rows, meta));
    }
}
