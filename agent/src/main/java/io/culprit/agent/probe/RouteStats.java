package io.culprit.agent.probe;

import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One route's requests: latency distribution, mean handler and container times, and the running
 * sums for the Pearson correlation between a request's latency and the idle gap before it (the
 * signature of work redone after idleness, CASES.md seed 1). Request threads never touch it: they
 * log their requests per thread ({@link EventLog}) and {@link RequestProbe} adds them here when it
 * folds, under its fold lock, which guards every field.
 */
final class RouteStats {

    final String route;
    /** This route's place in the probe's table, which is what a logged request carries. */
    final int index;
    private final Histogram latencyUs = Micros.histogram();
    private long handled;
    private double handlerMsSum;
    private double containerMsSum;
    private double handledContainerMsSum;
    private long gapN;
    private double sx, sy, sxx, syy, sxy;

    RouteStats(String route, int index) {
        this.route = route;
        this.index = index;
    }

    /** One request, its latency already in microseconds too; {@code gapMs} negative when unknown. */
    void add(long latencyNs, long latencyUs, long handlerNs, long gapMs) {
        double ms = latencyNs / 1e6;
        Micros.record(this.latencyUs, latencyUs);
        containerMsSum += ms;
        if (handlerNs >= 0) {
            handled++;
            handlerMsSum += handlerNs / 1e6;
            handledContainerMsSum += ms;
        }
        if (gapMs >= 0) {
            gapN++;
            sx += gapMs;
            sy += ms;
            sxx += (double) gapMs * gapMs;
            syy += ms * ms;
            sxy += gapMs * ms;
        }
    }

    /** Requests folded so far. */
    long count() {
        return latencyUs.getTotalCount();
    }

    /** This route's row. */
    Map<String, Object> row() {
        long count = count();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("route", route);
        r.put("count", count);
        r.put("p50Ms", latencyUs.getValueAtPercentile(50) / 1e3);
        r.put("p99Ms", latencyUs.getValueAtPercentile(99) / 1e3);
        r.put("meanMs", containerMsSum / Math.max(1, count));
        // Handler and container means over the same requests, so their difference is meaningful.
        Double handler = handled == 0 ? null : handlerMsSum / handled;
        Double container = handled == 0 ? containerMsSum / Math.max(1, count) : handledContainerMsSum / handled;
        r.put("handlerMs", handler);
        r.put("containerMs", container);
        r.put("belowHandlerMs", handler == null ? null : container - handler);
        r.put("idleGapCorrelation", correlation());
        return r;
    }

    private Double correlation() {
        if (gapN < 3) return null;
        double vx = gapN * sxx - sx * sx;
        double vy = gapN * syy - sy * sy;
        if (vx <= 0 || vy <= 0) return null;
        return (gapN * sxy - sx * sy) / Math.sqrt(vx * vy);
    }
}
