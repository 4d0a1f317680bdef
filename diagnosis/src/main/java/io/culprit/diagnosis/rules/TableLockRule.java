package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maintenance run by the requests: a statement that rebuilds or locks a whole table or view
 * (REFRESH MATERIALIZED VIEW, TRUNCATE, LOCK TABLE, VACUUM, ANALYZE, CREATE INDEX, ALTER TABLE)
 * in {@code tables/calls} with a per-request rate. Such a statement takes a table-level lock: the
 * requests running it queue behind each other, and the statements that read the same relation
 * queue behind them. A claims service outside the lab refreshed a materialized view of policy
 * totals on every payout: db-row-lock read "a row lock held by another transaction" and proposed
 * sharding a hot row, where the cause was the refresh (3.5 s at P99) and its exclusive lock on
 * the view, which the response then read.
 */
public final class TableLockRule implements Rule {
    static final double SHARE_WARN = 0.10;
    static final double SHARE_CRITICAL = 0.30;
    /** Run at least this often per request, a maintenance statement is the requests' own, not a job's. */
    static final double MIN_PER_REQUEST = 0.05;
    /** The statement's verb, and the relation it works on (group "rel"). */
    private static final Pattern MAINTENANCE = Pattern.compile("^\\s*(?<verb>refresh\\s+materialized\\s+view"
            + "|truncate|lock|vacuum|analyze|reindex|cluster|alter\\s+table|create\\s+(?:unique\\s+)?index|drop\\s+index)\\b"
            + "(?:\\s+(?:concurrently|table|full|verbose|analyze|if\\s+exists|only|index))*"
            + "(?:\\s+[\\w$\"]+\\s+on(?:\\s+only)?)?\\s+(?<rel>[\\w$.\"]+)", Pattern.CASE_INSENSITIVE);

    @Override public String id() { return "table-lock"; }
    @Override public String title() { return "Requests run a statement that locks a whole table or view (REFRESH, TRUNCATE, DDL)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (framework probes off)");
        Table t = calls.get();
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"sql".equalsIgnoreCase(t.text(i, "kind")) || !(t.number(i, "perRequest") >= MIN_PER_REQUEST)) continue;
            if (relation(t.text(i, "target")) == null) continue;
            if (top < 0 || t.number(i, "shareOfRequestTime") > t.number(top, "shareOfRequestTime")) top = i;
        }
        if (top < 0) {
            return finding(Severity.OK).evidence("tables/calls")
                    .summary("no request ran a statement that locks a whole table or view (REFRESH MATERIALIZED VIEW, TRUNCATE,"
                            + " LOCK TABLE, DDL).").build();
        }
        String target = t.text(top, "target");
        Matcher m = MAINTENANCE.matcher(target);
        m.find();
        String verb = m.group("verb").replaceAll("\\s+", " ").toUpperCase(Locale.ROOT), relation = m.group("rel");
        boolean refresh = verb.startsWith("REFRESH"), concurrently = target.toLowerCase(Locale.ROOT).contains(" concurrently ");
        double own = finite(t.number(top, "shareOfRequestTime"));
        // The other statements on the same relation wait for its lock.
        double behind = 0;
        int reader = -1;
        Pattern word = Pattern.compile("(?i)(^|[^\\w$])" + Pattern.quote(relation.replace("\"", "")) + "($|[^\\w$])");
        for (int i = 0; i < t.rows().size(); i++) {
            if (i == top || !"sql".equalsIgnoreCase(t.text(i, "kind")) || !word.matcher(t.text(i, "target").replace("\"", "")).find()) continue;
            behind += finite(t.number(i, "shareOfRequestTime"));
            if (reader < 0 || t.number(i, "shareOfRequestTime") > t.number(reader, "shareOfRequestTime")) reader = i;
        }
        double share = Math.min(1, own + behind);
        Severity sev = share >= SHARE_CRITICAL ? Severity.CRITICAL : share >= SHARE_WARN ? Severity.WARN : Severity.INFO;
        Numbers n = new Numbers();
        String row = "tables/calls#" + top, caller = Evidence.text(t, top, "caller");
        String summary = SlowCallsRule.quote(target) + " runs " + n.tag(Fmt.num(t.number(top, "perRequest")), row) + " time(s) per request"
                + " (P99 " + n.tag(Fmt.ms(t.number(top, "p99Ms")), row) + ", " + n.tag(Fmt.pct(own), row) + " of request time)"
                + ": " + verb + " locks all of " + relation + ", so the requests running it queue behind each other"
                + (reader < 0 ? "" : ", and " + SlowCallsRule.quote(t.text(reader, "target")) + " waits behind it ("
                + n.tag(Fmt.pct(behind), "tables/calls#" + reader) + " of request time in statements on " + relation + ")")
                + SlowCallsRule.calledFrom(t, top) + ".";
        Finding.Builder f = finding(sev).score(share).evidence(row).culprit(caller.isEmpty() ? target : caller)
                .summary(summary).numbers(n.refs())
                .explanation(refresh
                        ? "REFRESH MATERIALIZED VIEW recomputes the whole view from its query, however little changed, and holds the"
                        + " view's lock while it does" + (concurrently ? " (CONCURRENTLY lets reads go on, but refreshes still run one"
                        + " at a time, each recomputing everything)" : ": an exclusive lock that blocks every read of the view")
                        + ". Run per write, it turns each request into a full recomputation, serialized."
                        : verb + " takes a lock on the whole table for as long as it runs: every other statement on the table waits,"
                        + " and requests that run it wait for each other. Maintenance and schema changes belong outside requests.")
                .fix(refresh ? "Take the refresh off the request path: refresh on a schedule or after a batch of writes (the totals"
                        + " eventually consistent), or with CONCURRENTLY (needs a unique index on the view) so reads are not blocked;"
                        + " or keep the aggregate in a table that each write updates, and read that."
                        : "Move " + verb + " out of the request path: a scheduled maintenance job, or a migration; for a per-request"
                        + " scratch table use a temporary table or DELETE of the request's own rows.")
                .confirm((Frames.classAndMethod(caller) == null ? "" : ev.confirm("trace " + Frames.classAndMethod(caller)) + "; ")
                        + ev.database().lockWaits());
        if (sev == Severity.WARN || sev == Severity.CRITICAL) {
            f.explains("db-row-lock").explains("slow-calls").explains("pool-starvation").explains("pool-size")
                    .explains("tail-latency").explains("request-errors").explains("thread-oversubscription");
        }
        return f.build();
    }

    /** The relation a maintenance statement locks, or null when {@code sql} is not one. */
    static String relation(String sql) {
        Matcher m = MAINTENANCE.matcher(sql == null ? "" : sql);
        return m.find() ? m.group("rel") : null;
    }
}
