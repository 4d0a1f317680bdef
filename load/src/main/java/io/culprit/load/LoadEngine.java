package io.culprit.load;

import io.culprit.load.internal.Run;

/**
 * Runs a {@link LoadPlan} and returns its {@link LoadResult}. The CLI's {@code culprit load} and
 * {@code culprit diagnose} both go through here.
 *
 * <pre>{@code
 * LoadPlan plan = LoadPlan.open(RateSchedule.constant(800, Duration.ofSeconds(60)),
 *         List.of(RequestSpec.get("http://127.0.0.1:8080/orders"))).withWindow(Duration.ofSeconds(15));
 * LoadResult r = LoadEngine.run(plan, new LoadListener() {
 *     public void onWindow(WindowStats w) { series.add(w.startEpochMs(), w.latency().getValueAtPercentile(99)); }
 * });
 * }</pre>
 *
 * The calling thread blocks for the warmup, the duration and the drain (at most the request timeout).
 * Interrupting it ends the run early with what was measured so far.
 */
public final class LoadEngine {

    private LoadEngine() {
    }

    /**
     * @throws LoadException for an unknown or unreachable host, a non-loopback host with
     *                       {@link LoadPlan#localOnly()}, or a request Netty cannot encode
     */
    public static LoadResult run(LoadPlan plan, LoadListener listener) {
        return new Run(plan).execute(listener == null ? LoadListener.NONE : listener);
    }
}
