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

/**
 * Connections taken from the pool and never given back. The signature: every connection leased
 * in (nearly) every window, not one returned during the whole observation (the probe measures
 * usage time when a connection is closed, and has none), no statement finishing and no thread
 * waiting inside the driver, while threads queue for a connection. A pool too small still returns
 * connections; slow or locked statements still finish or show as waits in the driver. Pool-size's
 * Little's Law would read the requests' own time as usage here and call the pool undersized:
 * growing it only delays the same exhaustion. A partial leak, where some connections still come
 * back, is not recognised: pool-size and pool-starvation then speak.
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
        return b.severity(starving ? Severity.CRITICAL : Severity.WARN).score(0.95)
                .evidence("series/pools#dbTotal").evidence("series/pools#dbUsageMsMean")
                .culprit("connections taken and never closed")
                .summary("all " + n.tag(Fmt.num(size), "series/pools#dbTotal") + " connections of the pool stayed leased ("
                        + leased + ") and none came back in " + Fmt.num(Math.round(ev.observedSeconds())) + " s (no close, no statement"
                        + " finished, no wait in the driver)"
                        + (pending >= 1 ? ", while up to " + n.tag(Fmt.num(pending), "series/pools#dbPending") + " threads waited" : "")
                        + (Double.isFinite(acquire) ? (pending >= 1 ? "" : ", while threads waited") + " up to "
                        + n.tag(Fmt.ms(acquire), "series/pools#dbAcquireMsMax") + " for one" : "")
                        + ": connections are leaked, not too few.")
                .numbers(n.refs())
                .explains("pool-size").explains("pool-starvation").explains("request-errors").explains("tail-latency")
                .explains("thread-oversubscription")
                .explanation("A connection taken with getConnection() and not closed on some path (an early return, an"
                        + " exception before close, a connection kept in a field) stays leased for good. Each one shrinks the"
                        + " pool; once all are gone every request waits the pool's connection timeout and fails. If instead"
                        + " `thread` shows request threads inside the JDBC driver, the connections are held by statements that"
                        + " never finish (a lock, an unreachable database), not leaked.")
                .fix("Close every connection where it is taken (try-with-resources, or leave it to JdbcTemplate or"
                        + " @Transactional). To find the path, " + DbPool.of(ev).leakDetection + ".")
                .confirm(ev.confirm("stack " + DbPool.of(ev).acquire + " -n 20") + " (who takes connections)")
                .build();
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
        Optional<Table> t = ev.table(table);
        if (t.isEmpty()) return 0;
        double sum = 0;
        for (int i = 0; i < t.get().rows().size(); i++) {
            if (kind != null && !kind.equalsIgnoreCase(t.get().text(i, "kind"))) continue;
            double v = t.get().number(i, column);
            if (Double.isFinite(v)) sum += v;
        }
        return sum;
    }
}
