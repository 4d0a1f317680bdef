package io.culprit.agent.probe;

import io.culprit.model.Series;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The per-second rows of series {@code pools} and {@code requests}, at most an hour of them. */
final class Windows {

    private static final int MAX = 3_600;
    private final List<Long> t = new ArrayList<>();
    private final List<Map<String, Double>> pools = new ArrayList<>();
    private final List<Map<String, Double>> requests = new ArrayList<>();

    synchronized void add(long startMs, Map<String, Double> poolRow, Map<String, Double> requestRow) {
        if (t.size() == MAX) {
            t.remove(0);
            pools.remove(0);
            requests.remove(0);
        }
        t.add(startMs);
        pools.add(poolRow);
        requests.add(requestRow);
    }

    synchronized Map<String, Double> lastPools() {
        return pools.isEmpty() ? Map.of() : pools.get(pools.size() - 1);
    }

    synchronized Map<String, Double> lastRequests() {
        return requests.isEmpty() ? Map.of() : requests.get(requests.size() - 1);
    }

    /** Null when no window had any value (the framework is absent): the series is then not written. */
    synchronized Series series(String name) {
        List<Map<String, Double>> rows = "pools".equals(name) ? pools : requests;
        if (rows.stream().allMatch(Map::isEmpty)) return null;
        Series.Builder b = Series.builder(name, Probes.WINDOW_MS);
        for (int i = 0; i < t.size(); i++) b.row(t.get(i), rows.get(i));
        return b.build();
    }
}
