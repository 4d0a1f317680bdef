package io.culprit.jfr.collect;

import io.culprit.jfr.collect.Windows.Mode;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;

/**
 * GC pauses: series {@code gc} (all collectors together, by the window the collection started
 * in; with ZGC's allocation stalls, each a thread waiting to allocate, in {@code stallCount} and
 * {@code stallMs}) and tables {@code gc-collectors} and {@code gc-causes}. Concurrent time comes from
 * {@code jdk.GCPhaseConcurrent} (top-level concurrent phases only, so nested phases are not
 * counted twice). The cause says what asked for a collection: a full heap is tuning, but
 * {@code System.gc()} or humongous allocations are code, and {@code jdk.SystemGC}'s stack names
 * the code that asked. Table {@code gc-references}: the references each collection found by kind
 * ({@code jdk.GCReferenceStatistics}); "Final reference" counts objects with a {@code finalize()}
 * method, each of which survives the collection that finds it.
 */
public final class GcCollector implements EventCollector {
    private final Windows gc = new Windows("gc", 1000)
            .column("pauseCount", Mode.SUM, "count")
            .column("pauseSumMs", Mode.SUM, "ms")
            .column("pauseMaxMs", Mode.MAX, "ms")
            .column("concurrentMs", Mode.SUM, "ms")
            .column("stallCount", Mode.SUM, "count")
            .column("stallMs", Mode.SUM, "ms");
    private final Map<String, Tally> byCollector = new LinkedHashMap<>();
    private final Map<String, Tally> byCause = new LinkedHashMap<>();
    private final StackCounter systemGcCallers = new StackCounter();
    private long systemGcs;
    /** By reference kind: [total found, most in one collection]. */
    private final Map<String, long[]> references = new LinkedHashMap<>();
    static final String SYSTEM_GC = "System.gc()";
    /** Collections counted so far, by gcId: a recording can hold one twice. */
    private final RecentIds collections = new RecentIds(4096);

    @Override
    public Set<String> events() {
        return Set.of("jdk.GarbageCollection", "jdk.GCPhaseConcurrent", "jdk.SystemGC", "jdk.GCReferenceStatistics",
                "jdk.ZAllocationStall");
    }

    @Override
    public void accept(RecordedEvent e) {
        long t = EventCollector.epochMs(e);
        if (e.getEventType().getName().equals("jdk.GCPhaseConcurrent")) {
            gc.add(t, "concurrentMs", EventCollector.ms(e.getDuration()));
            return;
        }
        if (e.getEventType().getName().equals("jdk.ZAllocationStall")) {
            // A thread's wait to allocate, in the window it began in: one stalled thread, not a pause of all.
            gc.add(t, "stallCount", 1);
            gc.add(t, "stallMs", EventCollector.ms(e.getDuration()));
            return;
        }
        if (e.getEventType().getName().equals("jdk.GCReferenceStatistics")) {
            long count = e.getLong("count");
            long[] r = references.computeIfAbsent(String.valueOf(e.getString("type")), k -> new long[2]);
            r[0] += count;
            r[1] = Math.max(r[1], count);
            return;
        }
        if (e.getEventType().getName().equals("jdk.SystemGC")) {
            systemGcs++;
            systemGcCallers.add(Frames.of(e.getStackTrace()));
            return;
        }
        if (collections.seen(e.getLong("gcId"))) return;
        double sum = EventCollector.ms(e.getDuration("sumOfPauses"));
        double max = EventCollector.ms(e.getDuration("longestPause"));
        gc.add(t, "pauseCount", 1);
        gc.add(t, "pauseSumMs", sum);
        gc.add(t, "pauseMaxMs", max);
        byCollector.computeIfAbsent(e.getString("name"), k -> new Tally()).add(sum, max);
        String cause = e.getString("cause");
        byCause.computeIfAbsent(cause == null ? "?" : cause, k -> new Tally()).add(sum, max);
    }

    @Override
    public List<Series> series(Observation o) {
        return List.of(gc.build(o.startMs(), o.endMs()));
    }

    @Override
    public List<Table> tables(Observation o) {
        List<Map<String, Object>> rows = new ArrayList<>();
        byCollector.forEach((name, c) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("collector", name);
            c.into(r, "sumMs");
            rows.add(r);
        });
        rows.sort((a, b) -> Double.compare((Double) b.get("sumMs"), (Double) a.get("sumMs")));
        return List.of(new Table("gc-collectors", List.of("collector", "count", "sumMs", "maxMs"), rows,
                o.meta()), causes(o), references(o));
    }

    private Table references(Observation o) {
        List<Map<String, Object>> rows = new ArrayList<>();
        references.forEach((type, r) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", type);
            m.put("count", r[0]);
            m.put("maxPerGc", r[1]);
            rows.add(m);
        });
        return new Table("gc-references", List.of("type", "count", "maxPerGc"), rows, o.meta());
    }

    /** Collections by cause; the System.gc() row also names the code that called it most. */
    private Table causes(Observation o) {
        List<Map<String, Object>> rows = new ArrayList<>();
        byCause.forEach((cause, c) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("cause", cause);
            c.into(r, "sumMs");
            List<String> stack = SYSTEM_GC.equals(cause) && systemGcs > 0 ? systemGcCallers.top() : null;
            r.put("calls", SYSTEM_GC.equals(cause) ? systemGcs : null);
            r.put("site", stack == null ? null : Frames.topNonJdk(stack));
            r.put("stack", stack);
            rows.add(r);
        });
        rows.sort((a, b) -> Double.compare((Double) b.get("sumMs"), (Double) a.get("sumMs")));
        return new Table("gc-causes", List.of("cause", "count", "sumMs", "maxMs", "calls", "site", "stack"), rows, o.meta());
    }
}
