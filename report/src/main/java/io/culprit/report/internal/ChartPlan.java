package io.culprit.report.internal;

import java.util.List;

/**
 * Which series columns are drawn together, in the order the issue asks for: what the user felt
 * (latency, rate, errors), then the mechanisms that usually explain it (GC, heap, pools,
 * threads, CPU). Columns of a case that no chart here plots get a chart of their own series,
 * so every {@code series/...} evidence ref has somewhere to scroll to.
 */
public final class ChartPlan {
    /** A chart: title, unit, and refs {@code series#column}. */
    public record Spec(String id, String title, String unit, List<String> refs) { }

    public static final List<Spec> CHARTS = List.of(
            new Spec("latency", "Latency percentiles", "ms",
                    List.of("requests#p50Ms", "requests#p90Ms", "requests#p99Ms", "requests#maxMs")),
            new Spec("rate", "Achieved rate", "req/s", List.of("requests#rps", "requests#targetRps")),
            new Spec("errors", "Errors", "per window", List.of("requests#errors")),
            new Spec("gc", "GC pauses", "ms per window", List.of("gc#pauseSumMs", "gc#pauseMaxMs", "gc#concurrentMs")),
            new Spec("heap", "Heap", "MB", List.of("heap#usedMb", "heap#committedMb", "heap#usedAfterGcMb", "heap#maxMb")),
            new Spec("pool", "Connection pool", "connections",
                    List.of("pools#dbActive", "pools#dbPending", "pools#dbIdle", "pools#dbTotal")),
            new Spec("pool-ms", "Connection acquire / usage", "ms",
                    List.of("pools#dbAcquireMsMax", "pools#dbUsageMsMax", "pools#dbUsageMsMean")),
            new Spec("threads", "Busy threads", "threads",
                    List.of("pools#containerBusy", "pools#containerMax", "threads#runnable", "threads#blocked")),
            new Spec("cpu", "CPU", "share of machine", List.of("cpu#jvmUser", "cpu#jvmSystem", "cpu#machineTotal")));

    private ChartPlan() { }
}
