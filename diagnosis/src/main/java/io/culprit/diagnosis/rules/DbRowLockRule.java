package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Waits on a database row lock. Direct evidence is the {@code db-locks} table (sampled from the
 * database's lock view); without it, a slow write statement dominating request time while
 * reads stay fast is the classic signature of many requests updating the same hot row.
 */
public final class DbRowLockRule implements Rule {
    /** A tenth of request time waiting on a lock is a design problem, not noise. */
    static final double SHARE_WARN = 0.1;
    /** A third of request time queued on one row: throughput is capped by that row. */
    static final double SHARE_CRITICAL = 0.3;
    /** Writes that lock rows: UPDATE, DELETE, INSERT ... ON CONFLICT, SELECT ... FOR UPDATE/SHARE. */
    private static final Pattern LOCKING = Pattern.compile("^\\s*(update|delete|insert)\\b|\\bfor\\s+(update|share|no key update)\\b");

    @Override public String id() { return "db-row-lock"; }
    @Override public String title() { return "Requests queue on a database row lock"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> locks = ev.table("db-locks");
        if (locks.isPresent()) return fromLockTable(ev, locks.get());
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table db-locks and no table calls");
        Table t = calls.get();
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"sql".equalsIgnoreCase(t.text(i, "kind"))) continue;
            String sql = String.valueOf(t.text(i, "target")).toLowerCase(Locale.ROOT);
            if (!LOCKING.matcher(sql).find() || !(t.number(i, "p99Ms") >= SlowCallsRule.SQL_SLOW_MS)) continue;
            if (top < 0 || t.number(i, "shareOfRequestTime") > t.number(top, "shareOfRequestTime")) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (top < 0) return b.summary("no locking SQL statement over " + Fmt.ms(SlowCallsRule.SQL_SLOW_MS) + " at P99.").build();
        double share = t.number(top, "shareOfRequestTime");
        Severity sev = share >= SHARE_CRITICAL ? Severity.WARN : share >= SHARE_WARN ? Severity.INFO : Severity.OK;
        String target = t.text(top, "target");
        return b.severity(sev).score(share * 0.8).culprit(target).evidence("tables/calls#" + top)
                .summary("locking statement " + SlowCallsRule.quote(target) + " takes " + Fmt.pct(share) + " of request time (P99 "
                        + Fmt.ms(t.number(top, "p99Ms")) + "): likely waiting on a row lock (no db-locks evidence to prove it).")
                .explains("slow-calls").explains("pool-starvation").explains("pool-size").explains("tail-latency").explains("request-errors")
                .explains("thread-oversubscription")
                .explanation(EXPLANATION).fix(FIX)
                .confirm("psql: SELECT pid, wait_event_type, query FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                .build();
    }

    private static final String EXPLANATION = "Concurrent transactions updating the same row serialize on its lock:"
            + " each waits for the previous to commit, so the statement's time grows with concurrency while the"
            + " database is idle, and connections and threads pile up behind it.";
    private static final String FIX = "Stop updating one hot row per request: shard the counter, apply the update"
            + " asynchronously or in batches, or keep the transaction holding the lock short (commit right after it).";

    private Finding fromLockTable(Evidence ev, Table t) {
        if (t.isEmpty()) return finding(Severity.OK).evidence("tables/db-locks").summary("no database lock waits sampled.").build();
        int top = 0;
        double waitMs = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            waitMs += finite(t.number(i, "waitMs"));
            if (t.number(i, "waitMs") > t.number(top, "waitMs")) top = i;
        }
        double requestMs = ev.requestTimeMs();
        double share = requestMs > 0 ? waitMs / requestMs : Double.NaN;
        Severity sev = share >= SHARE_CRITICAL ? Severity.CRITICAL : share >= SHARE_WARN ? Severity.WARN
                : waitMs > 0 ? Severity.INFO : Severity.OK;
        String query = t.text(top, "query");
        String relation = Evidence.text(t, top, "relation");
        return finding(sev).score(share).culprit(query).evidence("tables/db-locks#" + top)
                .summary(Fmt.num(t.number(top, "waits")) + " waits on a row lock" + (relation.isEmpty() ? "" : " of " + relation)
                        + " by " + SlowCallsRule.quote(query) + ", " + Fmt.ms(t.number(top, "waitMs")) + " of waiting in total"
                        + (Double.isFinite(share) ? ": " + Fmt.pct(share) + " of request time" : "") + ".")
                .explains("slow-calls").explains("pool-starvation").explains("pool-size").explains("tail-latency").explains("request-errors")
                .explains("thread-oversubscription")
                .explanation(EXPLANATION).fix(FIX)
                .confirm("psql: SELECT pid, wait_event_type, query FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                .build();
    }

    private static double finite(double v) {
        return Double.isFinite(v) ? v : 0;
    }
}
