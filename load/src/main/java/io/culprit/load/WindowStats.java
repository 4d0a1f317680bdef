package io.culprit.load;

import org.HdrHistogram.Histogram;

/**
 * One row of the per-window table: what finished between {@code startNanos} and {@code endNanos}
 * (offsets from the start of the measured run). Histograms are in microseconds; {@code latency}
 * is measured from the intended send time (coordinated-omission corrected), {@code service} from
 * the actual send. Requests are counted when they finish (response or failure).
 *
 * @param targetRequests requests the schedule intended in this window (open model), NaN for closed
 * @param inFlight       requests sent and not yet answered when the window closed
 * @param queued         open model: requests due but waiting for a free connection when the window closed
 */
public record WindowStats(int index, long startNanos, long endNanos, long startEpochMs, double targetRequests,
                          long requests, long errors, long inFlight, long queued, Histogram latency,
                          Histogram service) {

    public double seconds() {
        return (endNanos - startNanos) / 1e9;
    }

    public double achievedRps() {
        return requests / seconds();
    }

    /** Target rate over the window (open model), NaN for closed. */
    public double targetRps() {
        return targetRequests / seconds();
    }

    /**
     * How far the achieved rate fell short of the target, as a fraction of the target: 0.1 means 10 %
     * short; negative means the generator caught up on a backlog. NaN for the closed model.
     */
    public double shortfall() {
        return targetRequests > 0 ? (targetRequests - requests) / targetRequests : Double.NaN;
    }
}
