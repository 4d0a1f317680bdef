package io.culprit.load;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The outcome of a run. Histograms are in microseconds: {@code latency} from the intended send time
 * (coordinated-omission corrected; equal to service time in the closed model), {@code service} from
 * the actual send. Only requests that got a response are in the histograms; failures (connect,
 * timeout, I/O) are counted in {@code errorsByKind}. {@code errors} = failures + HTTP status >= 400.
 *
 * @param measuredNanos  length of the measured part (warmup excluded, drain excluded)
 * @param sent           requests written during the measured part
 * @param unsent         open model: requests the schedule intended but no connection could take by the end
 * @param closedByServer measured responses under 400 after which the server closed the connection (keep-alive refused)
 * @param bodyBytes      the measured responses' body bytes, as decoded
 * @param targetRequests open model: requests the schedule intended in the measured part; NaN for closed
 * @param perRequest     one entry per plan request, in plan order (connect failures belong to none)
 */
public record LoadResult(LoadPlan plan, long startEpochMs, long measuredNanos, long requests, long errors,
                         long sent, long unsent, long closedByServer, long bodyBytes, double targetRequests, Map<String, Long> errorsByKind,
                         Map<Integer, Long> statusCounts, Histogram latency, Histogram service,
                         List<WindowStats> windows, List<RequestStats> perRequest) {

    public double seconds() {
        return measuredNanos / 1e9;
    }

    public double achievedRps() {
        return requests / seconds();
    }

    /** Fraction of finished requests that are errors, 0 when nothing finished. */
    public double errorRate() {
        return requests == 0 ? 0 : (double) errors / requests;
    }
}
