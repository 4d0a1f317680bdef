package io.culprit.load.internal;

import io.culprit.load.LoadListener;
import io.culprit.load.LoadResult;
import io.culprit.load.Progress;
import io.culprit.load.RequestStats;
import io.culprit.load.WindowStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The engine thread's clock: at each tick (about a second, dividing the window evenly) it swaps the
 * recorders' intervals into the current window and the run total, reports progress, and closes a
 * window when its time is up. The last window also receives what completes during the drain.
 */
final class WindowSampler {

    private final Run run;
    private final LoadListener listener;
    private final long startEpochMs;
    private final Histogram totalLatency = newHistogram();
    private final Histogram totalService = newHistogram();
    /** Per worker, recycled across swaps. */
    private Histogram[] intervalLatency;
    private Histogram[] intervalService;
    private Histogram winLatency = newHistogram();
    private Histogram winService = newHistogram();
    private long lastFailures;
    private long lastHttpErrors;
    private long winFailures;
    private long winHttpErrors;
    private long totalErrors;
    private final List<WindowStats> windows = new ArrayList<>();

    WindowSampler(Run run, LoadListener listener, long startEpochMs) {
        this.run = run;
        this.listener = listener;
        this.startEpochMs = startEpochMs;
    }

    LoadResult run() {
        long window = run.plan.window().toNanos();
        long measured = run.plan.duration().toNanos();
        long tick = window / Math.max(1, (window + 999_999_999L) / 1_000_000_000L);
        long measuredStart = run.base + run.warmupNanos;
        long planEnd = measuredStart + measured;
        long totalNanos = run.warmupNanos + measured;

        boolean interrupted = false;
        for (long t = run.base + Math.min(1_000_000_000L, run.warmupNanos); t < measuredStart && !interrupted;
             t = Math.min(measuredStart, t + 1_000_000_000L)) {
            interrupted = !parkUntil(t);
            swap();
            listener.onProgress(new Progress(t - run.base, totalNanos, true, 0, 0, 0, 0, 0));
        }
        if (interrupted) {
            planEnd = measuredStart = System.nanoTime();
        }
        // Nothing is recorded before measuredStart (requests are tagged at send), so no reset is needed.
        long winStart = measuredStart;
        long winNominal = measuredStart;
        long lastTickCount = 0;
        long lastTick = measuredStart;
        long end = planEnd;
        for (long t = Math.min(planEnd, measuredStart + tick); !interrupted; t = Math.min(planEnd, t + tick)) {
            interrupted = !parkUntil(t);
            // Window edges are when the swap really happened, so a late wake-up moves an edge but
            // never miscounts the rate: requests and target are both taken over the actual span.
            long now = System.nanoTime();
            swap();
            long requests = totalLatency.getTotalCount() + lastFailures;
            listener.onProgress(new Progress(now - run.base, totalNanos, false, requests, totalErrors + winFailuresAndHttp(),
                    (requests - lastTickCount) * 1e9 / Math.max(1, now - lastTick),
                    totalLatency.getValueAtPercentile(50), totalLatency.getValueAtPercentile(99)));
            lastTickCount = requests;
            lastTick = now;
            if (t >= planEnd || interrupted) {
                // An open schedule has no request after planEnd, so a late tick must not stretch the
                // run; a closed run really went on sending until now.
                end = run.schedule != null ? Math.min(now, planEnd) : now;
                break;
            }
            if (t - winNominal >= window - tick / 2) {
                closeWindow(winStart, now, measuredStart);
                winStart = now;
                winNominal = t;
            }
        }
        // An interrupt ends the run early but still drains, so requests on the wire are measured,
        // not miscounted as timeouts; the caller gets its interrupt back afterwards.
        boolean wasInterrupted = Thread.interrupted();
        long unsent = run.stopAndDrain();
        swap();
        if (end > winStart || windows.isEmpty() && end > measuredStart) {
            closeWindow(winStart, end, measuredStart);
        }
        if (wasInterrupted) {
            Thread.currentThread().interrupt();
        }
        return result(end - measuredStart, unsent, measuredStart);
    }

    private long winFailuresAndHttp() {
        return winFailures + winHttpErrors;
    }

    private void swap() {
        Worker[] workers = run.workers();
        if (intervalLatency == null) {
            intervalLatency = new Histogram[workers.length];
            intervalService = new Histogram[workers.length];
        }
        long f = 0;
        long h = 0;
        for (int i = 0; i < workers.length; i++) {
            Metrics m = workers[i].metrics;
            intervalLatency[i] = m.latency.getIntervalHistogram(intervalLatency[i]);
            intervalService[i] = m.service.getIntervalHistogram(intervalService[i]);
            winLatency.add(intervalLatency[i]);
            winService.add(intervalService[i]);
            totalLatency.add(intervalLatency[i]);
            totalService.add(intervalService[i]);
            f += m.failures.get();
            h += m.httpErrors.get();
        }
        winFailures += f - lastFailures;
        winHttpErrors += h - lastHttpErrors;
        lastFailures = f;
        lastHttpErrors = h;
    }

    private void closeWindow(long start, long end, long measuredStart) {
        double target = Double.NaN;
        if (run.schedule != null) {
            target = run.schedule.countAt(end - run.base) - run.schedule.countAt(start - run.base);
        }
        long requests = winLatency.getTotalCount() + winFailures;
        long inFlight = 0;
        long queued = 0;
        for (Worker worker : run.workers()) {
            long[] g = worker.gauges();
            inFlight += g[0];
            queued += g[1];
        }
        WindowStats w = new WindowStats(windows.size(), start - measuredStart, end - measuredStart,
                startEpochMs + (start - run.base) / 1_000_000, target, requests, winFailures + winHttpErrors,
                inFlight, queued, winLatency, winService);
        totalErrors += winFailures + winHttpErrors;
        windows.add(w);
        listener.onWindow(w);
        winLatency = newHistogram();
        winService = newHistogram();
        winFailures = winHttpErrors = 0;
    }

    private LoadResult result(long measuredNanos, long unsent, long measuredStart) {
        long[] byKind = new long[Metrics.Failure.values().length];
        long[] status = new long[600];
        long failures = 0;
        long httpErrors = 0;
        long sent = 0;
        long closedByServer = 0;
        long bodyBytes = 0;
        for (Worker w : run.workers()) {
            Metrics m = w.metrics;
            for (Metrics.Failure k : Metrics.Failure.values()) {
                byKind[k.ordinal()] += m.failures(k);
            }
            for (int i = 0; i < status.length; i++) {
                status[i] += m.status.get(i);
            }
            failures += m.failures.get();
            httpErrors += m.httpErrors.get();
            sent += m.sent.get();
            closedByServer += m.closedByServer.get();
            bodyBytes += m.bodyBytes.get();
        }
        Map<String, Long> errors = new LinkedHashMap<>();
        errors.put("connect", byKind[Metrics.Failure.CONNECT.ordinal()]);
        errors.put("timeout", byKind[Metrics.Failure.TIMEOUT.ordinal()]);
        errors.put("io", byKind[Metrics.Failure.IO.ordinal()]);
        errors.put("http", httpErrors);
        Map<Integer, Long> statusCounts = new LinkedHashMap<>();
        for (int i = 0; i < status.length; i++) {
            if (status[i] > 0) {
                statusCounts.put(i, status[i]);
            }
        }
        double target = Double.NaN;
        if (run.schedule != null) {
            long s = measuredStart - run.base;
            target = run.schedule.countAt(s + measuredNanos) - run.schedule.countAt(s);
        }
        List<RequestStats> perRequest = new ArrayList<>();
        for (int i = 0; i < run.plan.requests().size(); i++) {
            Histogram h = newHistogram();
            long finished = 0;
            long failed = 0;
            for (Worker w : run.workers()) {
                h.add(w.metrics.latencyByRequest[i]);
                finished += w.metrics.finishedByRequest[i];
                failed += w.metrics.errorsByRequest[i];
            }
            perRequest.add(new RequestStats(run.plan.requests().get(i), finished, failed, h));
        }
        return new LoadResult(run.plan, startEpochMs + run.warmupNanos / 1_000_000, measuredNanos,
                totalLatency.getTotalCount() + failures, failures + httpErrors, sent, unsent, closedByServer, bodyBytes, target, errors,
                statusCounts, totalLatency, totalService, List.copyOf(windows), List.copyOf(perRequest));
    }

    /** Waits until {@code deadline} (System.nanoTime); false if the engine thread was interrupted. */
    private static boolean parkUntil(long deadline) {
        for (long d; (d = deadline - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(d);
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
        return true;
    }

    static Histogram newHistogram() {
        return new Histogram(Metrics.HIGHEST_MICROS, Metrics.DIGITS);
    }
}
