package io.culprit.jfr.collect;

import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;

/**
 * Table {@code cpu-hotspots} from CPU samples (JFR's or async-profiler's, {@link CpuSample}): per
 * method, the samples where it was on top (self) and anywhere on the stack (total, counted once
 * per sample even when recursive). Meta {@code sampler} says whose samples they are.
 */
public final class HotspotCollector implements EventCollector, SampleCollector {
    private static final int TOP = 50;
    private final Map<String, long[]> byMethod = new HashMap<>(); // self, total
    private long samples;
    private String sampler;

    @Override
    public Set<String> events() {
        return Set.of(CpuSample.EVENT);
    }

    @Override
    public void accept(RecordedEvent e) {
        CpuSample s = CpuSample.ofJfr(e);
        if (s != null) sample(s);
    }

    @Override
    public void sample(CpuSample s) {
        samples++;
        sampler = s.sampler;
        Set<String> seen = new HashSet<>();
        boolean top = true;
        for (RecordedFrame f : s.frames) {
            String m = Frames.method(Frames.format(f));
            long[] c = byMethod.computeIfAbsent(m, k -> new long[2]);
            if (top) c[0]++;
            if (seen.add(m)) c[1]++;
            top = false;
        }
    }

    @Override
    public List<Table> tables(Observation o) {
        List<Map.Entry<String, long[]>> sorted = new ArrayList<>(byMethod.entrySet());
        sorted.sort((a, b) -> a.getValue()[0] != b.getValue()[0] ? Long.compare(b.getValue()[0], a.getValue()[0])
                : Long.compare(b.getValue()[1], a.getValue()[1]));
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map.Entry<String, long[]> e : sorted.subList(0, Math.min(TOP, sorted.size()))) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("frame", e.getKey());
            r.put("selfSamples", e.getValue()[0]);
            r.put("totalSamples", e.getValue()[1]);
            r.put("selfShare", (double) e.getValue()[0] / samples);
            r.put("totalShare", (double) e.getValue()[1] / samples);
            rows.add(r);
        }
        Map<String, Object> meta = o.meta();
        meta.put("samples", samples);
        if (sampler != null) meta.put("sampler", sampler);
        return List.of(new Table("cpu-hotspots", List.of("frame", "selfSamples", "totalSamples", "selfShare", "totalShare"),
                rows, meta));
    }
}
