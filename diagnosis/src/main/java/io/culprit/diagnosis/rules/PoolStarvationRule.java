package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.util.Locale;
import java.util.Optional;

/**
 * Threads waiting for a pooled connection. This is a symptom: the rule says how bad the wait is
 * and whether it tracks the tail; pool-size (Little's Law), gc-pressure and the slow-call rules
 * say why connections were not coming back.
 */
public final class PoolStarvationRule implements Rule {
    /** A connection acquire above 100 ms is already a visible slice of a typical API budget. */
    static final double ACQUIRE_WARN_MS = 100;
    /** Ten or more threads queued for a connection, moving with P99: the queue is the latency. */
    static final double PENDING_CRITICAL = 10;
    static final double TAIL_CORRELATION = 0.7;
    /** An acquire under 10 ms is a connection handed over, not a thread starving for one. */
    static final double ACQUIRE_MIN_MS = 10;
    /** A tenth of request time spent getting a connection is a queue worth naming. */
    static final double WAIT_SHARE_WARN = 0.1;
    /**
     * A third of request time queued for a connection: the pool sets the latency, whether or not
     * the queue moves with P99 (a queue that never empties keeps the tail flat).
     */
    static final double WAIT_SHARE_CRITICAL = 0.3;

    @Override public String id() { return "pool-starvation"; }
    @Override public String title() { return "Threads starve waiting for a pooled connection"; }

    @Override public boolean symptom() { return true; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<ColumnStats> pending = ev.stats("pools", "dbPending");
        if (pending.isEmpty()) return notAssessed("no series pools#dbPending");
        double acquire = ev.stats("pools", "dbAcquireMsMax").map(ColumnStats::max).orElse(Double.NaN);
        double total = ev.stats("pools", "dbTotal").map(ColumnStats::max).orElse(Double.NaN);
        double r = ev.correlation("pools", "dbPending", "requests", "p99Ms");
        Numbers n = new Numbers();
        String size = Double.isFinite(total) ? " for a pool of " + n.tag(Fmt.num(total), "series/pools#dbTotal") : "";
        String acq = Double.isFinite(acquire) ? ", connection acquire up to " + n.tag(Fmt.ms(acquire), "series/pools#dbAcquireMsMax") : "";
        if (pending.get().max() < 1 && !(acquire >= ACQUIRE_WARN_MS)) {
            return finding(Severity.OK).evidence("series/pools#dbPending")
                    .summary("no thread waited for a connection (pending max " + n.tag("0", "series/pools#dbPending") + size + ")" + acq)
                    .numbers(n.refs()).build();
        }
        boolean tracksTail = r >= TAIL_CORRELATION;
        boolean fades = !lasts(pending.get());
        double waitShare = waitShare(ev);
        boolean queued = pending.get().max() >= 1 && !fades;
        Severity sev = pending.get().max() >= PENDING_CRITICAL && tracksTail && !fades
                || queued && waitShare >= WAIT_SHARE_CRITICAL ? Severity.CRITICAL
                : pending.get().max() >= 1 && (acquire >= ACQUIRE_WARN_MS || tracksTail && !fades && !(acquire < ACQUIRE_MIN_MS))
                || queued && waitShare >= WAIT_SHARE_WARN ? Severity.WARN : Severity.INFO;
        // At the CPU's capacity the queue forms at the pool, whatever its size: what it says is said at INFO.
        String cpuBound = sev.compareTo(Severity.INFO) > 0 ? CpuBoundPool.clause(ev, n) : null;
        if (cpuBound != null) sev = Severity.INFO;
        String waited = Double.isFinite(waitShare) && waitShare >= WAIT_SHARE_WARN
                ? "; requests spent " + n.tag(Fmt.pct(waitShare), "series/pools#dbAcquireMsTotal") + " of their time getting one" : "";
        return finding(sev).score(Math.max(tracksTail ? r * r * 0.9 : 0.1, queued && waitShare >= WAIT_SHARE_WARN ? Math.min(0.9, waitShare) : 0))
                .evidence("series/pools#dbPending").evidence("series/pools#dbAcquireMsMax")
                .summary("up to " + n.tag(Fmt.num(pending.get().max()), "series/pools#dbPending") + " threads waited for a connection"
                        + size + " (from " + n.tag(Fmt.num(pending.get().min()), "series/pools#dbPending") + ")" + acq + waited
                        + (Double.isFinite(r) ? "; pending " + (tracksTail ? "tracks" : "does not track")
                        + " P99 (r = " + n.tag(String.format(Locale.ROOT, "%.2f", r), "series/requests#p99Ms") + ")" : "")
                        + (fades ? "; none waited in the last third of the run (warm-up, not a steady queue)" : "")
                        + (cpuBound != null ? "; " + cpuBound : "") + ".")
                .numbers(n.refs())
                .explains("tail-latency").explains("capped-calls").explains("request-errors").explains("thread-oversubscription")
                .culprit(cpuBound != null ? null : "connection pool")
                .explanation(cpuBound != null ? CpuBoundPool.EXPLANATION
                        : "Requests queue for a connection when connections come back slower than they are"
                        + " asked for: a pool too small for rps × usage time, a slower database, or holders frozen"
                        + " (GC pauses, locks) while they hold one.")
                .fix(cpuBound != null ? CpuBoundPool.FIX : "Fix what keeps connections out (see the root cause); enlarge the pool only if Little's Law"
                        + " says it is undersized.")
                .confirm(ev.confirm("watch " + DbPool.of(ev).acquire + " '#cost' '#cost > 50'"))
                .build();
    }

    /**
     * The share of request time spent in the pool's acquire: every acquire's time, summed per
     * window by the probe, over the requests' time. NaN without the column or without requests.
     */
    static double waitShare(Evidence ev) {
        Optional<ColumnStats> acquired = ev.stats("pools", "dbAcquireMsTotal");
        double requestMs = ev.requestTimeMs();
        if (acquired.isEmpty() || !(requestMs > 0)) return Double.NaN;
        return Math.min(1, acquired.get().sum() / requestMs);
    }

    /**
     * Whether a thread still waited in the last third of the run. A queue gone by then belonged to
     * the warm-up (JIT, the pool still opening connections), as tail-latency reads a tail that fades.
     */
    static boolean lasts(ColumnStats pending) {
        return pending.lastThird() > 0;
    }
}
