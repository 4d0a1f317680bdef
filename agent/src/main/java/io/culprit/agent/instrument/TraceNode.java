package io.culprit.agent.instrument;

import java.util.ArrayList;
import java.util.List;

/**
 * One call site (or the root) within one traced invocation, aggregated over repeated calls from
 * that site: a loop calling {@code find()} 31 times is one node with count 31, as in Arthas.
 */
final class TraceNode {

    final int site;
    final List<TraceNode> children = new ArrayList<>(4);
    long count;
    long totalNanos;
    long minNanos = Long.MAX_VALUE;
    long maxNanos;
    long thrown;
    long start;
    /** Roots only: set when handed to the command thread, cleared once rendered (then reusable). */
    volatile boolean inFlight;
    Thread thread;
    long wallMillis;

    TraceNode(int site) {
        this.site = site;
    }

    TraceNode child(int site) {
        for (int i = 0; i < children.size(); i++) {  // few children per node: a scan beats a map
            TraceNode c = children.get(i);
            if (c.site == site) {
                return c;
            }
        }
        TraceNode c = new TraceNode(site);
        children.add(c);
        return c;
    }

    void finish(long now, boolean threw) {
        long took = now - start;
        count++;
        totalNanos += took;
        minNanos = Math.min(minNanos, took);
        maxNanos = Math.max(maxNanos, took);
        if (threw) {
            thrown++;
        }
    }

    /** Zeroes the tree for reuse; nodes not reached next time keep count 0 and are not shown. */
    void reset() {
        count = 0;
        totalNanos = 0;
        minNanos = Long.MAX_VALUE;
        maxNanos = 0;
        thrown = 0;
        for (int i = 0; i < children.size(); i++) {
            children.get(i).reset();
        }
    }
}
