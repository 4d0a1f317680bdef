package io.culprit.agent.probe;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * One route's requests: latency distribution, mean handler and container times, and the running
 * sums for the Pearson correlation between a request's latency and the idle gap before it (the
 * signature of work redone after idleness, CASES.md seed 1). Every request thread of a busy
 * route records here, so recording takes no lock: a wait-free histogram and striped adders (a
 * reader may see one request's sums half added, which moves a mean by one request at most).
 */
final class RouteStats {

    final String route;
    private final ConcurrentHistogram latencyUs = new ConcurrentHistogram(3);
    private final LongAdder count = new LongAdder();
    private final LongAdder handled = new LongAdder();
    private final DoubleAdder handlerMsSum = new DoubleAdder();
    private final DoubleAdder containerMsSum = new DoubleAdder();
    private final DoubleAdder handledContainerMsSum = new DoubleAdder();
    private final LongAdder gapN = new LongAdder();
    private final DoubleAdder sx = new DoubleAdder(), sy = new DoubleAdder(), sxx = new DoubleAdder(),
            syy = new DoubleAdder(), sxy = new DoubleAdder();

    RouteStats(String route) {
        this.route = route;
    }

    void add(long latencyNs, long handlerNs, long gapMs) {
        double ms = latencyNs / 1e6;
        latencyUs.recordValue(Math.max(1, latencyNs / 1_000));
        count.increment();
        containerMsSum.add(ms);
        if (handlerNs >= 0) {
            handled.increment();
            handlerMsSum.add(handlerNs / 1e6);
            handledContainerMsSum.add(ms);
        }
        if (gapMs >= 0) {
            gapN.increment();
            sx.add(gapMs);
            sy.add(ms);
            sxx.add((double) gapMs * gapMs);
            syy.add(ms * ms);
            sxy.add(gapMs * ms);
        }
    }

    long count() {
        return count.sum();
    }

    Map<String, Object> row() {
        Histogram latencyUs = this.latencyUs.copy();
        long count = this.count.sum();
        long handled = this.handled.sum();
        double containerMsSum = this.containerMsSum.sum();
        double handlerMsSum = this.handlerMsSum.sum();
        double handledContainerMsSum = this.handledContainerMsSum.sum();
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
        long gapN = this.gapN.sum();
        double sx = this.sx.sum(), sy = this.sy.sum(), sxx = this.sxx.sum(), syy = this.syy.sum(), sxy = this.sxy.sum();
        if (gapN < 3) return null;
        double vx = gapN * sxx - sx * sx;
        double vy = gapN * syy - sy * sy;
        if (vx <= 0 || vy <= 0) return null;
        return (gapN * sxy - sx * sy) / Math.sqrt(vx * vy);
    }
}
