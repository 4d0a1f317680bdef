package io.culprit.jfr.collect;

import io.culprit.jfr.collect.Windows.Mode;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedObject;

/**
 * Heap occupancy and sizing: series {@code heap} and {@code alloc}, table {@code heap-config}.
 *
 * <p>Allocation is measured the way GC logs are read: what the heap held before GC n+1 minus
 * what it held after GC n is what the application allocated in between. It needs no extra
 * events (works on a plain default recording) and agrees with the collector's own accounting;
 * the bytes are spread evenly over the windows between the two GCs. Windows after the last GC
 * have no measurement and are NaN. Limit: G1 does not count its active allocation region as
 * used, so less than about one region (1-32 MB) allocated between two GCs (forced, back-to-back
 * collections) reads as 0; at the rates that matter (GC every second or two) it is exact.
 */
public final class HeapCollector implements EventCollector {
    private static final double MB = 1024.0 * 1024.0;

    private final Windows heap = new Windows("heap", 1000)
            .column("usedMb", Mode.LAST, "MB")
            .column("usedAfterGcMb", Mode.LAST, "MB")
            .column("committedMb", Mode.LAST, "MB")
            .column("maxMb", Mode.LAST, "MB");
    private final Map<Integer, long[]> byGc = new HashMap<>(); // beforeMs, beforeBytes, afterMs, afterBytes
    private final Map<String, Object> config = new LinkedHashMap<>();

    @Override
    public Set<String> events() {
        return Set.of("jdk.GCHeapSummary", "jdk.GCConfiguration", "jdk.GCHeapConfiguration",
                "jdk.UnsignedLongFlag", "jdk.UnsignedIntFlag");
    }

    @Override
    public void accept(RecordedEvent e) {
        switch (e.getEventType().getName()) {
            case "jdk.GCHeapSummary": summary(e); break;
            case "jdk.GCConfiguration":
                config.put("youngCollector", e.getString("youngCollector"));
                config.put("oldCollector", e.getString("oldCollector"));
                break;
            case "jdk.GCHeapConfiguration":
                config.put("initialMb", e.getLong("initialSize") / MB);
                config.put("maxMb", e.getLong("maxSize") / MB);
                break;
            default: // flags
                String name = e.getString("name");
                if ("MinHeapFreeRatio".equals(name)) config.put("minHeapFreeRatio", ((Number) e.getValue("value")).doubleValue());
                if ("MaxHeapFreeRatio".equals(name)) config.put("maxHeapFreeRatio", ((Number) e.getValue("value")).doubleValue());
                // Half a region is where G1 allocates an object as humongous, straight into old regions.
                if ("G1HeapRegionSize".equals(name) && ((Number) e.getValue("value")).longValue() > 0) {
                    config.put("regionMb", ((Number) e.getValue("value")).doubleValue() / MB);
                }
        }
    }

    private void summary(RecordedEvent e) {
        long t = EventCollector.epochMs(e);
        long used = e.getLong("heapUsed");
        RecordedObject space = e.getValue("heapSpace");
        heap.add(t, "usedMb", used / MB);
        heap.add(t, "committedMb", space.getLong("committedSize") / MB);
        heap.add(t, "maxMb", space.getLong("reservedSize") / MB);
        long[] g = byGc.computeIfAbsent(e.getInt("gcId"), k -> new long[] {-1, 0, -1, 0});
        if ("After GC".equals(e.getString("when"))) {
            heap.add(t, "usedAfterGcMb", used / MB);
            g[2] = t;
            g[3] = used;
        } else {
            g[0] = t;
            g[1] = used;
        }
    }

    @Override
    public List<Series> series(Observation o) {
        return List.of(heap.build(o.startMs(), o.endMs()), allocation(o.startMs(), o.endMs()));
    }

    private Series allocation(long startMs, long endMs) {
        long first = startMs / 1000;
        int n = (int) Math.max(1, (endMs - 1) / 1000 - first + 1);
        double[] bytes = new double[n];
        double[] covered = new double[n];
        List<Integer> ids = new ArrayList<>(byGc.keySet());
        ids.sort(null);
        for (int i = 0; i + 1 < ids.size(); i++) {
            long[] prev = byGc.get(ids.get(i));
            long[] next = byGc.get(ids.get(i + 1));
            if (prev[2] < 0 || next[0] < 0 || next[0] <= prev[2]) continue;
            spread(prev[2], next[0], Math.max(0, next[1] - prev[3]), first, bytes, covered);
        }
        Series.Builder b = Series.builder("alloc", 1000).unit("mbPerSec", "MB/s");
        for (int w = 0; w < n; w++) {
            double rate = covered[w] > 0 ? bytes[w] / MB / (covered[w] / 1000.0) : Double.NaN;
            b.row((first + w) * 1000, Map.of("mbPerSec", rate));
        }
        return b.build();
    }

    private static void spread(long from, long to, double total, long firstWindow, double[] bytes, double[] covered) {
        double perMs = total / (to - from);
        for (long w = from / 1000; w <= (to - 1) / 1000; w++) {
            int i = (int) (w - firstWindow);
            if (i < 0 || i >= bytes.length) continue;
            long lo = Math.max(from, w * 1000), hi = Math.min(to, (w + 1) * 1000);
            bytes[i] += perMs * (hi - lo);
            covered[i] += hi - lo;
        }
    }

    @Override
    public List<Table> tables(Observation o) {
        if (config.isEmpty()) return List.of();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("collector", collector((String) config.get("youngCollector"), (String) config.get("oldCollector")));
        for (String c : List.of("initialMb", "maxMb", "minHeapFreeRatio", "maxHeapFreeRatio", "youngCollector", "oldCollector",
                "regionMb")) {
            row.put(c, config.get(c));
        }
        return List.of(new Table("heap-config", new ArrayList<>(row.keySet()), List.of(row),
                o.meta()));
    }

    /** The name users know (G1, Parallel, Serial, ZGC, Shenandoah) from JFR's generation names. */
    static String collector(String young, String old) {
        if (young == null) return old;
        if (young.startsWith("G1")) return "G1";
        if (young.equals("ParallelScavenge")) return "Parallel";
        if (young.equals("DefNew")) return "Serial";
        if (young.startsWith("Z") || "Z".equals(old) || String.valueOf(old).startsWith("Z")) return "ZGC";
        if (young.startsWith("Shenandoah")) return "Shenandoah";
        return young + "/" + old;
    }
}
