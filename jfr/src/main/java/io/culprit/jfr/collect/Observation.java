package io.culprit.jfr.collect;

import java.util.LinkedHashMap;
import java.util.Map;

/** What the evidence covers: the time range and, when the load generator knows it, the request count. */
public final class Observation {
    private final long startMs;
    private final long endMs;
    private final long requests;

    public Observation(long startMs, long endMs, long requests) {
        if (endMs < startMs) throw new IllegalArgumentException("observation ends before it starts");
        this.startMs = startMs;
        this.endMs = endMs;
        this.requests = requests;
    }

    public long startMs() { return startMs; }
    public long endMs() { return endMs; }
    /** 0 when unknown. */
    public long requests() { return requests; }

    public double seconds() {
        return Math.max(0.001, (endMs - startMs) / 1000.0);
    }

    public double perSecond(double count) {
        return count / seconds();
    }

    /** Per request, or null when the request count is unknown (the catalogue's "unknown"). */
    public Double perRequest(double count) {
        return requests > 0 ? count / requests : null;
    }

    /** The table {@code meta} the catalogue asks for: {@code seconds} and, when known, {@code requests}; plus the window's bounds. */
    public Map<String, Object> meta() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seconds", seconds());
        m.put("startMs", startMs);
        m.put("endMs", endMs);
        if (requests > 0) m.put("requests", requests);
        return m;
    }
}
