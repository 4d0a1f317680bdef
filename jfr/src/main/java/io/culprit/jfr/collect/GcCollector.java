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
 * in) and table {@code gc-collectors}. Concurrent time comes from {@code jdk.GCPhaseConcurrent}
 * (top-level concurrent phases only, so nested phases are not counted twice).
 */
public final class GcCollector implements EventCollector {
    private final Windows gc = new Windows("gc", 1000)
            .column("pauseCount", Mode.SUM, "count")
            .column("pauseSumMs", Mode.SUM, "ms")
            .column("pauseMaxMs", Mode.MAX, "ms")
            .column("concurrentMs", Mode.SUM, "ms");
    private final Map<String, double[]> byCollector = new LinkedHashMap<>(); // count, sum, max

    @Override
    public Set<String> events() {
        return Set.of("jdk.GarbageCollection", "jdk.GCPhaseConcurrent");
    }

    @Override
    public void accept(RecordedEvent e) {
        long t = EventCollector.epochMs(e);
        if (e.getEventType().getName().equals("jdk.GCPhaseConcurrent")) {
            gc.add(t, "concurrentMs", EventCollector.ms(e.getDuration()));
            return;
        }
        double sum = EventCollector.ms(e.getDuration("sumOfPauses"));
        double max = EventCollector.ms(e.getDuration("longestPause"));
        gc.add(t, "pauseCount", 1);
        gc.add(t, "pauseSumMs", sum);
        gc.add(t, "pauseMaxMs", max);
        double[] c = byCollector.computeIfAbsent(e.getString("name"), k -> new double[3]);
        c[0]++;
        c[1] += sum;
        c[2] = Math.max(c[2], max);
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
            r.put("count", (long) c[0]);
            r.put("sumMs", c[1]);
            r.put("maxMs", c[2]);
            rows.add(r);
        });
        rows.sort((a, b) -> Double.compare((Double) b.get("sumMs"), (Double) a.get("sumMs")));
        return List.of(new Table("gc-collectors", List.of("collector", "count", "sumMs", "maxMs"), rows,
                o.meta()));
    }
}
