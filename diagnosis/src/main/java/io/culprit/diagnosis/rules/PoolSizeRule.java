package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.util.Optional;

/**
 * Little's Law for the connection pool: connections busy on average = throughput × usage time.
 * If that is well under the pool size, the pool is not undersized, whatever the pending queue
 * says (CASES.md #2: 1k rps × 4.32 ms ≈ 4.3 of 10). Usage time is the pool's mean when recorded;
 * otherwise the request's own p50 bounds it from above (a connection is held within a request).
 */
public final class PoolSizeRule implements Rule {
    /** Below half the pool busy on average, random arrivals almost never exhaust it. */
    static final double RULED_OUT_UTILISATION = 0.5;
    /** At 90 % mean utilisation queueing theory predicts long waits even without any fault. */
    static final double UNDERSIZED_UTILISATION = 0.9;

    @Override public String id() { return "pool-size"; }
    @Override public String title() { return "Connection pool too small for the demand"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<ColumnStats> total = ev.stats("pools", "dbTotal");
        Optional<ColumnStats> rps = ev.stats("requests", "rps");
        if (total.isEmpty() || rps.isEmpty()) return notAssessed("needs series pools#dbTotal and requests#rps");
        boolean measured = ev.has("pools", "dbUsageMsMean");
        Optional<ColumnStats> usage = measured ? ev.stats("pools", "dbUsageMsMean") : ev.stats("requests", "p50Ms");
        if (usage.isEmpty()) return notAssessed("no usage time (pools#dbUsageMsMean or requests#p50Ms)");
        // The busier of the first and last thirds: the law must hold where the trouble was. Rate and
        // usage from the same third: the warm-up's long holds times the end's high rate is no moment's demand.
        double demandLast = rps.get().lastThird() * usage.get().lastThird(), demandFirst = rps.get().firstThird() * usage.get().firstThird();
        boolean last = Double.isNaN(demandFirst) || demandLast >= demandFirst;
        double throughput = last ? rps.get().lastThird() : rps.get().firstThird();
        double usageMs = last ? usage.get().lastThird() : usage.get().firstThird();
        double needed = throughput * usageMs / 1000;
        double size = total.get().max();
        double util = needed / size;
        Numbers n = new Numbers();
        String usageRef = measured ? "series/pools#dbUsageMsMean" : "series/requests#p50Ms";
        String law = "Little's Law: " + n.tag(Fmt.num(throughput), "series/requests#rps") + " rps × " + n.tag(Fmt.ms(usageMs), usageRef)
                + (measured ? " usage" : " (p50, an upper bound on usage)") + " = " + n.tag(Fmt.num(needed), usageRef)
                + " connections busy on average, pool has " + n.tag(Fmt.num(size), "series/pools#dbTotal");
        Finding.Builder b = finding(Severity.OK).evidence("series/pools#dbTotal").evidence("series/requests#rps");
        if (onlyScheduledSql(ev)) {
            // The requests took no connection: their rate times a scheduled task's holds is no demand of theirs.
            return b.summary("the requests made no SQL call: only scheduled tasks used the pool's connections, so Little's Law over"
                    + " the requests does not size it.").build();
        }
        if (util < RULED_OUT_UTILISATION) {
            return b.summary(law + ": the pool is not undersized.").numbers(n.refs()).build();
        }
        Optional<ColumnStats> pendingStats = ev.stats("pools", "dbPending");
        double pending = pendingStats.map(ColumnStats::max).orElse(0.0);
        // Waiters in the third the law was read from: a pool as busy as the load's own concurrency
        // (64 users, 64 connections) is full without anyone queueing, and a warm-up's waiter is no queue.
        boolean waitedThen = pendingStats.map(p -> !((last ? p.lastThird() : p.firstThird()) == 0)).orElse(true);
        String cpuBound = CpuBoundPool.clause(ev, n);
        if (cpuBound != null) {
            return b.severity(Severity.INFO).score(0.1)
                    .summary(law + " (" + n.tag(Fmt.pct(util), "series/pools#dbTotal") + " utilised)"
                            + (pending >= 1 ? ", " + n.tag(Fmt.num(pending), "series/pools#dbPending") + " threads pending" : "")
                            + "; " + cpuBound + "; the pool is not what limits the service.")
                    .numbers(n.refs()).explanation(CpuBoundPool.EXPLANATION).fix(CpuBoundPool.FIX)
                    .confirm(ev.confirm("monitor " + DbPool.of(ev).acquire + " -c 5")).build();
        }
        // Without measured usage the request's p50 bounds it from above, and the statements' own time from below: a
        // reactive service (R2DBC's pool lends a connection per statement) spends most of each request elsewhere.
        double statementsBusy = measured ? Double.NaN : statementsBusy(ev);
        boolean boundsOnly = Double.isFinite(statementsBusy) && statementsBusy / size < UNDERSIZED_UTILISATION;
        boolean undersized = util >= UNDERSIZED_UTILISATION && pending >= 1 && waitedThen
                && (!boundsOnly || pendingStats.map(PoolSizeRule::sustained).orElse(false));
        double waitShare = PoolStarvationRule.waitShare(ev);
        // Connections held neither in statements nor across calls while this JVM fills the CPU: held while it computes.
        String computing = undersized && measured ? heldWhileComputing(ev, needed, n) : null;
        Severity sev = undersized && waitShare >= PoolStarvationRule.WAIT_SHARE_CRITICAL && computing == null ? Severity.CRITICAL
                : undersized ? Severity.WARN : Severity.INFO;
        // A container on virtual threads has no worker pool: nothing but this pool bounds the requests in flight.
        boolean virtual = ev.onVirtualThreads();
        // What the connections are busy with, when the pool is full: the statement to shorten before sizing.
        int busy = undersized ? LockContentionRule.costliestSql(ev) : -1;
        return b.severity(sev).score(Math.min(1, util) * (sev == Severity.CRITICAL ? 0.9 : computing != null ? 0.3 : 0.5))
                .summary(law + " (" + n.tag(Fmt.pct(util), "series/pools#dbTotal") + " utilised)"
                        + (pending >= 1 ? ", " + n.tag(Fmt.num(pending), "series/pools#dbPending") + " threads pending"
                        + (waitedThen ? "" : " at most, none in the " + (last ? "last" : "first") + " third of the run, where the law was read") : "")
                        + (undersized && waitShare >= PoolStarvationRule.WAIT_SHARE_WARN ? "; requests spent "
                        + n.tag(Fmt.pct(waitShare), "series/pools#dbAcquireMsTotal") + " of their time getting a connection" : "")
                        + (virtual ? "; the container runs requests on virtual threads" : "")
                        + (busy >= 0 ? LockContentionRule.connectionHolders(ev, busy, n) : "")
                        + (computing != null ? computing : "")
                        + (boundsOnly && !undersized ? "; its statements alone keep " + n.tag(Fmt.num(statementsBusy), "tables/calls")
                        + " busy on average, and threads waited in fewer than half the windows: not shown undersized" : "") + ".")
                .numbers(n.refs())
                .explains("pool-starvation").explains("capped-calls").explains("tail-latency").explains("request-errors")
                .culprit("connection pool size")
                .explanation("At this utilisation the pool is the bottleneck. Whether to grow it depends on the usage"
                        + " time: if connections are held long because of a slow or locked statement, fix that first."
                        + (virtual ? " On virtual threads the container starts a thread for every request it accepts, so"
                        + " the requests in flight are bounded only by the clients, and all of them queue here: the pool"
                        + " took over the role of the worker pool's maximum." : ""))
                .fix((computing != null ? "Take the computation out of the connection's scope (read, give the connection back,"
                        + " compute, then take one to write) and lower its CPU (the CPU findings name where it goes). Then size"
                        : busy >= 0 ? "Shorten connection usage first: " + LockContentionRule.statementFix(ev, busy) + "Then size"
                        : "Shorten connection usage (slow or locked statements, work done while holding a connection), then size")
                        + " the pool to about rps × usage time with headroom: " + Fmt.num(size) + " connections at "
                        + Fmt.ms(usageMs) + " a use serve at most " + Fmt.num(size * 1000 / usageMs) + " rps; to serve R rps"
                        + " at 70 % use, R × " + Fmt.ms(usageMs) + " ÷ 0.7 connections (a rate the pool capped is not the"
                        + " demand; and the database must take that many sessions at once)."
                        + (virtual ? " With virtual threads, also bound the concurrency in front of the database to what it"
                        + " serves well (a Semaphore around the data access, or a bulkhead), so that excess requests wait"
                        + " or are shed before they hold a thread, a request and its memory each." : ""))
                .confirm(ev.confirm("monitor " + DbPool.of(ev).acquire + " -c 5"))
                .build();
    }

    /** Busy connections held while computing, at least this share of them, for {@link #heldWhileComputing}. */
    static final double COMPUTING_SHARE = 0.7;

    /**
     * "; of the 6.1 connections busy, …, the rest (75 %) are held while this JVM computes …" when the
     * requests' statements and the calls made while holding a connection keep less than 30 % of
     * the busy connections (the rest at least {@link #COMPUTING_SHARE}), and this JVM saturates the CPU: the connections wait on the request's own
     * CPU work. A blind Javalin service (session 45) parsed 2,000 amounts per request with an
     * exception per bad one while holding its connection: 1.4 of 6.1 connections in statements, the
     * verdict "pool too small", and 3,055 exceptions a request second.
     */
    static String heldWhileComputing(Evidence ev, double needed, Numbers n) {
        if (!CpuSaturationRule.saturatedByThisJvm(ev) || !(needed > 0)) return null;
        double statements = statementsBusy(ev);
        Optional<io.culprit.model.Table> calls = ev.rows("calls");
        double secs = ev.observedSeconds();
        if (!Double.isFinite(statements) || calls.isEmpty() || !(secs > 0)) return null;
        double heldMs = 0;
        for (int i = 0; i < calls.get().rows().size(); i++) {
            if (!"sql".equals(calls.get().text(i, "kind"))) heldMs += io.culprit.diagnosis.Stats.finite(calls.get().number(i, "heldMs"));
        }
        double across = heldMs / (secs * 1000);
        double rest = needed - statements - across;
        if (!(rest >= COMPUTING_SHARE * needed)) return null;
        return "; of the " + Fmt.num(needed) + " connections busy, the statements keep " + n.tag(Fmt.num(statements), "tables/calls")
                + (across >= 0.05 ? " and calls made while holding one " + n.tag(Fmt.num(across), "tables/calls") : "")
                + ": the rest (" + Fmt.pct(rest / needed) + ") are held while this JVM computes, and it saturates the CPU, so the"
                + " usage time is the request's own CPU work done while holding a connection";
    }

    /** Waiters in at least half the windows (the median window had one): a queue that lasts, not an instant's burst. */
    private static boolean sustained(ColumnStats pending) {
        return pending.median() >= 1;
    }

    /** Connections the requests' statements keep busy on average (their time over the run's); NaN without a calls table. */
    static double statementsBusy(Evidence ev) {
        Optional<io.culprit.model.Table> calls = ev.rows("calls");
        double secs = ev.observedSeconds();
        if (calls.isEmpty() || !(secs > 0)) return Double.NaN;
        double ms = 0;
        for (int i = 0; i < calls.get().rows().size(); i++) {
            if ("sql".equals(calls.get().text(i, "kind")) && !SlowCallsRule.background(calls.get(), i)) ms += calls.get().number(i, "totalMs");
        }
        return ms / (secs * 1000);
    }

    /** SQL in {@code calls}, all of it from scheduled tasks (the agent's {@code background}). */
    static boolean onlyScheduledSql(Evidence ev) {
        Optional<io.culprit.model.Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return false;
        boolean scheduled = false;
        for (int i = 0; i < calls.get().rows().size(); i++) {
            if (!"sql".equals(calls.get().text(i, "kind"))) continue;
            if (!SlowCallsRule.background(calls.get(), i)) return false;
            scheduled = true;
        }
        return scheduled;
    }
}
