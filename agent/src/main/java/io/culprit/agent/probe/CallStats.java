package io.culprit.agent.probe;

import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One dependency call target (a normalized statement, a URL shape): counts and time. Calling
 * threads never touch it: they log their calls per thread ({@link EventLog}) and
 * {@link CallProbe} adds them here when it folds, under its fold lock, which guards every field.
 */
final class CallStats {

    final String kind;
    final String target;
    /** This target's place in the probe's table, which is what a logged call carries. */
    final int index;
    /** Where the target was first called from. */
    final CallSite site;
    /**
     * A statement's database product and version as its driver names them ("PostgreSQL 15.19", "H2 2.3.232 (2024-08-11)"), read
     * once at the statement's first execution so that advice can speak the database's dialect;
     * "" when unknown or not SQL. Set once, racily: every writer writes the same answer.
     */
    volatile String database;
    /** How the first execution's parameters were bound ({@link BindKinds}); 0 when none were seen. Set once, racily. */
    volatile long binds;
    /** The client when the calls are reactive and no blocking method of theirs can be traced ("r2dbc-postgresql"); else null. */
    volatile String reactiveClient;
    private final Histogram us = Micros.histogram();
    /** The longest call, exact: the histogram keeps two digits. */
    private long maxUs;
    private long slow;
    private long errors;
    private double totalMs;
    /** Time of the calls made while their thread held a pooled connection. */
    private double heldMs;
    /** Time of the calls made on an event loop's thread ({@code EventLoops}), which they block. */
    private double eventLoopMs;
    /** Time of the calls spent waiting for a connection from the HTTP client's own pool. */
    private double poolWaitMs;

    /** A statement's results read ({@link ResultRows}), their rows, and the most rows one of them gave. */
    private long resultSets;
    private long rows;
    private long rowsMax;

    CallStats(String kind, String target, int index, CallSite site) {
        this.kind = kind;
        this.target = target;
        this.index = index;
        this.site = site;
    }

    void add(long ns, boolean isSlow, boolean failed, boolean held, boolean onEventLoop, long poolWaitNs) {
        poolWaitMs += poolWaitNs / 1e6;
        Micros.record(us, ns / 1_000);  // counts the call too
        maxUs = Math.max(maxUs, ns / 1_000);
        totalMs += ns / 1e6;
        if (held) heldMs += ns / 1e6;
        if (onEventLoop) eventLoopMs += ns / 1e6;
        if (isSlow) slow++;
        if (failed) errors++;
    }

    void addRows(long n) {
        resultSets++;
        rows += n;
        rowsMax = Math.max(rowsMax, n);
    }

    double totalMs() {
        return totalMs;
    }

    Map<String, Object> row(double requestMs, long requests) {
        long count = us.getTotalCount();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("kind", kind);
        r.put("target", target);
        r.put("count", count);
        r.put("totalMs", totalMs);
        r.put("p99Ms", us.getValueAtPercentile(99) / 1e3);
        r.put("maxMs", maxUs / 1e3);
        r.put("slowCount", slow);
        r.put("errors", errors);
        r.put("heldMs", heldMs);
        r.put("eventLoopMs", eventLoopMs);
        r.put("poolWaitMs", poolWaitMs);
        if (resultSets > 0) {
            r.put("resultSets", resultSets);
            r.put("rows", rows);
            r.put("rowsMax", rowsMax);
        }
        // A scheduled task's calls are no request's: no share of request time, none per request. Other calls made
        // outside requests (startup, a thread of the application's own) can still push this above 1.
        boolean background = site.background;
        if (background) r.put("background", true);
        r.put("shareOfRequestTime", requestMs > 0 && !background ? Math.min(1.0, totalMs / requestMs) : null);
        r.put("perRequest", requests > 0 && !background ? (double) count / requests : null);
        r.put("caller", site.caller);
        r.put("callPath", site.path);
        if (site.stack != null) r.put("callStack", site.stack);
        if (site.bypass != null) r.put("proxyBypass", site.bypass);
        if (site.catalogVia != null) r.put("catalogVia", site.catalogVia);
        if (database != null && !database.isEmpty()) r.put("database", database);
        if (binds != 0) r.put("binds", BindKinds.describe(binds));
        if (reactiveClient != null) r.put("reactiveClient", reactiveClient);
        return r;
    }
}
