package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;
import java.util.function.DoubleBinaryOperator;

/**
 * Connections taken from the pool and never given back. The signature: every connection leased
 * in (nearly) every window, not one returned during the whole observation (the probe measures
 * usage time when a connection is closed, and has none), no statement finishing and no thread
 * waiting inside the driver, while threads queue for a connection. A pool too small still returns
 * connections; slow or locked statements still finish or show as waits in the driver. Pool-size's
 * Little's Law would read the requests' own time as usage here and call the pool undersized:
 * growing it only delays the same exhaustion.
 *
 * <p>A leak on a rare path drains the pool during the run instead: connections come back after
 * a millisecond, one fewer each time the path runs, until none is left. Its signature is the end
 * of the run: every connection leased and none returned for the last windows, with threads
 * waiting, in a pool whose statements never took a tenth of that time. A service outside the lab
 * that left the connection open when a price was "under review" (every 8,000th request) read
 * pool-starvation with no cause.
 */
public final class ConnectionLeakRule implements Rule {
    /** Windows with every connection leased, of the windows where the pool was read. */
    static final double EXHAUSTED_SHARE = 0.9;
    /** Fewer windows than this cannot tell "never returned" from "not returned yet". */
    static final int MIN_WINDOWS = 5;

    @Override public String id() { return "connection-leak"; }
    @Override public String title() { return "Connections taken from the pool and never returned"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Evidence.Fill> fill = ev.fill("pools", "dbActive", "dbTotal");
        if (fill.isEmpty()) return notAssessed("needs series pools#dbActive and pools#dbTotal");
        int read = fill.get().windows;
        double size = fill.get().capacity;
        Numbers n = new Numbers();
        Finding.Builder b = finding(Severity.OK).evidence("series/pools#dbActive");
        if (read < MIN_WINDOWS) return notAssessed("the pool was read in " + read + " windows, fewer than " + MIN_WINDOWS);
        double share = fill.get().share();
        String leased = n.tag(Fmt.pct(share), "series/pools#dbActive") + " of " + read + " windows";
        Optional<ColumnStats> usage = ev.stats("pools", "dbUsageMsMean");
        if (usage.isPresent() && !usage.get().isEmpty()) {
            Optional<Finding> drained = drained(ev, b, size, usage.get().mean(), new Numbers());
            if (drained.isPresent()) return drained.get();
            return b.summary("connections came back to the pool (usage time mean " + n.tag(Fmt.ms(usage.get().mean()),
                    "series/pools#dbUsageMsMean") + "); every connection was leased in " + leased + ".").numbers(n.refs()).build();
        }
        if (share < EXHAUSTED_SHARE) {
            return b.summary("no connection came back, but the pool was exhausted in only " + leased + ".").numbers(n.refs()).build();
        }
        long statements = finishedStatements(ev);
        double dbWaitMs = dbWaitMs(ev);
        if (statements > 0 || dbWaitMs > 0) {
            return b.summary("no connection came back while every one was leased (" + leased + "), but statements ran ("
                    + statements + " finished, " + Fmt.ms(dbWaitMs) + " waited in the driver): held by slow work, not leaked.")
                    .numbers(n.refs()).build();
        }
        double pending = ev.stats("pools", "dbPending").map(ColumnStats::max).orElse(0.0);
        double acquire = ev.stats("pools", "dbAcquireMsMax").map(ColumnStats::max).orElse(Double.NaN);
        boolean starving = pending >= 1 || acquire >= PoolStarvationRule.ACQUIRE_WARN_MS;
        return asLeak(b.severity(starving ? Severity.CRITICAL : Severity.WARN), ev, "")
                .culprit("connections taken and never closed")
                .summary("all " + n.tag(Fmt.num(size), "series/pools#dbTotal") + " connections of the pool stayed leased ("
                        + leased + ") and none came back in " + Fmt.num(Math.round(ev.observedSeconds())) + " s (no close, no statement"
                        + " finished, no wait in the driver)"
                        + (pending >= 1 ? ", while up to " + n.tag(Fmt.num(pending), "series/pools#dbPending") + " threads waited" : "")
                        + (Double.isFinite(acquire) ? (pending >= 1 ? "" : ", while threads waited") + " up to "
                        + n.tag(Fmt.ms(acquire), "series/pools#dbAcquireMsMax") + " for one" : "")
                        + ": connections are leaked, not too few.")
                .numbers(n.refs())
                .explanation("A connection taken with getConnection() and not closed on some path (an early return, an"
                        + " exception before close, a connection kept in a field) stays leased for good. Each one shrinks the"
                        + " pool; once all are gone every request waits the pool's connection timeout and fails. If instead"
                        + " `thread` shows request threads inside the JDBC driver, the connections are held by statements that"
                        + " never finish (a lock, an unreachable database), not leaked.")
                .build();
    }

    /** What both shapes of a leak share: the findings a leak explains, its cure, and the command that finds the path. */
    private static Finding.Builder asLeak(Finding.Builder b, Evidence ev, String where) {
        DbPool pool = DbPool.of(ev);
        return b.score(0.95).evidence("series/pools#dbTotal").evidence("series/pools#dbUsageMsMean")
                .explains("pool-size").explains("pool-starvation").explains("request-errors").explains("tail-latency")
                .explains("thread-oversubscription")
                .fix("Close every connection where it is taken (try-with-resources, or leave it to JdbcTemplate or"
                        + " @Transactional)" + where + ". To find the path, " + pool.leakDetection + ".")
                .confirm(ev.confirm("stack " + pool.acquire + " -n 20") + " (who takes connections)");
    }

    /**
     * The pool drained during the run: the trailing windows where every connection stayed leased
     * and none came back, threads waiting, and no statement of the run ever took a tenth of that
     * time (a hung statement would hold its connection as long, but statements that slow show
     * before). Empty when the run did not end so.
     */
    private static Optional<Finding> drained(Evidence ev, Finding.Builder b, double size, double usageMs, Numbers n) {
        double[] active = ev.column("pools", "dbActive").orElse(new double[0]);
        double[] total = ev.column("pools", "dbTotal").orElse(new double[0]);
        double[] usage = ev.column("pools", "dbUsageMsMean").orElse(new double[0]);
        double[] pending = ev.column("pools", "dbPending").orElse(new double[0]);
        int end = Math.min(active.length, Math.min(total.length, usage.length)), start = end;
        while (start > 0 && total[start - 1] >= 1 && active[start - 1] >= total[start - 1] && !Double.isFinite(usage[start - 1])) start--;
        int windows = end - start;
        double waiting = 0;
        for (int i = start; i < Math.min(end, pending.length); i++) if (Double.isFinite(pending[i])) waiting = Math.max(waiting, pending[i]);
        double intervalMs = ev.series("pools").map(s -> (double) s.intervalMs()).orElse(1000.0);
        double tailMs = windows * intervalMs;
        double slowest = slowestStatementMs(ev);
        if (windows < MIN_WINDOWS || start == 0 || waiting < 1 || slowest * 10 > tailMs) return Optional.empty();
        double tailStart = start * intervalMs / 1000;
        return Optional.of(asLeak(b.severity(Severity.CRITICAL), ev, ", on the error paths too").evidence("series/pools#dbPending")
                .culprit("connections taken and never closed on some path")
                .summary("the pool ran dry during the run: for the first " + Fmt.num(Math.round(tailStart)) + " s connections came back after "
                        + n.tag(Fmt.ms(usageMs), "series/pools#dbUsageMsMean") + " on average, then all "
                        + n.tag(Fmt.num(size), "series/pools#dbTotal") + " stayed leased and none came back for the last "
                        + Fmt.num(Math.round(tailMs / 1000)) + " s, while up to " + n.tag(Fmt.num(waiting), "series/pools#dbPending")
                        + " threads waited; no statement took longer than " + Fmt.ms(slowest)
                        + ": connections are leaked one at a time on some path, not too few.")
                .numbers(n.refs())
                .explanation("Connections that come back within milliseconds do not all stop coming back at once because the"
                        + " pool is small. A path that takes a connection and does not close it (an exception or an early"
                        + " return between getConnection and close, on a rare branch) keeps one for good each time it runs;"
                        + " the pool shrinks by one, serves the rest as before, and when the last is gone every request waits"
                        + " the pool's connection timeout and fails. Restarting or enlarging the pool only resets the clock. If"
                        + " `thread` shows the holders inside the JDBC driver instead, a statement hangs (a lock, an unreachable"
                        + " database).")
                .build());
    }

    /** The slowest SQL call the probes saw finish, 0 without a calls table. */
    private static double slowestStatementMs(Evidence ev) {
        return fold(ev, "calls", "maxMs", "sql", Math::max);
    }

    /** SQL calls the probes saw finish, 0 without a calls table. */
    private static long finishedStatements(Evidence ev) {
        return (long) total(ev, "calls", "count", "sql");
    }

    /** Time threads waited inside a database driver, 0 without a db-waits table. */
    private static double dbWaitMs(Evidence ev) {
        return total(ev, "db-waits", "waitMs", null);
    }

    /** The sum of a table's column over its rows (of {@code kind} when given), 0 without the table. */
    private static double total(Evidence ev, String table, String column, String kind) {
        return fold(ev, table, column, kind, Double::sum);
    }

    /** A table's column over its rows (of {@code kind} when given) folded by {@code op} from 0, 0 without the table. */
    private static double fold(Evidence ev, String table, String column, String kind, DoubleBinaryOperator op) {
        Optional<Table> t = ev.table(table);
        if (t.isEmpty()) return 0;
        double acc = 0;
        for (int i = 0; i < t.get().rows().size(); i++) {
            if (kind != null && !kind.equalsIgnoreCase(t.get().text(i, "kind"))) continue;
            double v = t.get().number(i, column);
            if (Double.isFinite(v)) acc = op.applyAsDouble(acc, v);
        }
        return acc;
    }
}
