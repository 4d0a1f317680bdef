package io.culprit.agent.probe;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One route's requests: latency distribution, mean handler and container times, and the running
 * sums for the Pearson correlation between a request's latency and the idle gap before it (the
 * signature of work redone after idleness, CASES.md seed 1). Every request thread of a busy
 * route records here, so recording takes no lock: wait-free recorders and striped adders (a
 * reader may see one request's sums half added, which moves a mean by one request at most).
 *
 * <p>A request's latency is recorded once, into the recorder of its idle-gap slot; the route's
 * own distribution, the window's and the gap bucket's are sums of those, folded by
 * {@link RequestProbe} under its lock when it reads them. Three concurrent histograms per
 * request (window, route, gap bucket) cost the probes more than everything else they record.
 */
final class RouteStats {

    final String route;
    /** Latency (us) by idle-gap slot ({@link RequestProbe#gapSlot}), each made at its first request. */
    private final AtomicReferenceArray<Recorder> bySlot;
    /** Each slot's last interval histogram, handed back to its recorder to fill next (no garbage per fold). */
    private final Histogram[] recycled;
    /** Every request folded so far; guarded by the probe's fold lock. */
    private final Histogram latencyUs = new Histogram(3);
    private final LongAdder handled = new LongAdder();
    private final DoubleAdder handlerMsSum = new DoubleAdder();
    private final DoubleAdder containerMsSum = new DoubleAdder();
    private final DoubleAdder handledContainerMsSum = new DoubleAdder();
    private final LongAdder gapN = new LongAdder();
    private final DoubleAdder sx = new DoubleAdder(), sy = new DoubleAdder(), sxx = new DoubleAdder(),
            syy = new DoubleAdder(), sxy = new DoubleAdder();

    RouteStats(String route, int slots) {
        this.route = route;
        this.bySlot = new AtomicReferenceArray<>(slots);
        this.recycled = new Histogram[slots];
    }

    /** One request; {@code slot} is its idle-gap slot, {@code gapMs} negative when unknown. */
    void add(long latencyNs, long handlerNs, long gapMs, int slot) {
        double ms = latencyNs / 1e6;
        Recorder r = bySlot.get(slot);
        if (r == null) {
            bySlot.compareAndSet(slot, null, new Recorder(3));
            r = bySlot.get(slot);
        }
        r.recordValue(Math.max(1, latencyNs / 1_000));
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

    /**
     * Moves the requests recorded since the last fold into this route's distribution, the
     * window's and, by slot, the gap buckets' ({@code gaps[slot]}; a slot past its end: gap
     * unknown). Called under the probe's fold lock only.
     */
    void fold(Histogram window, Histogram[] gaps) {
        for (int slot = 0; slot < recycled.length; slot++) {
            Recorder r = bySlot.get(slot);
            if (r == null) continue;
            Histogram h = r.getIntervalHistogram(recycled[slot]);
            recycled[slot] = h;
            if (h.getTotalCount() == 0) continue;
            latencyUs.add(h);
            window.add(h);
            if (slot < gaps.length) gaps[slot].add(h);
        }
    }

    /** Requests folded so far: call under the fold lock, after {@link #fold}. */
    long count() {
        return latencyUs.getTotalCount();
    }

    /** This route's row: call under the fold lock, after {@link #fold}. */
    Map<String, Object> row() {
        long count = count();
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
