package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A lock the application takes in the database on purpose, and every request queues on: an
 * advisory lock ({@code pg_advisory_xact_lock(42)}, MySQL's {@code GET_LOCK}, SQL Server's
 * {@code sp_getapplock}, Oracle's {@code DBMS_LOCK.REQUEST}) or {@code LOCK TABLE}. The statement's
 * time is the wait itself, so a share of request time in it is direct evidence, where a slow
 * UPDATE only suggests a row lock ({@link DbRowLockRule}). A service outside the lab that numbered
 * invoices as {@code max(no) + 1} under one advisory lock read "connection pool too small" with the
 * advice to make the lock statement "cheaper (its plan, an index)": the pool was full of requests
 * waiting their turn for the lock.
 */
public final class DbAppLockRule implements Rule {
    /** A tenth of request time waiting for the application's own lock: requests take turns. */
    static final double SHARE_WARN = 0.1;
    /** A third: the lock, not the work, sets the service's throughput. */
    static final double SHARE_CRITICAL = 0.3;
    /** Statements that acquire (not try, not release) a named or table lock, as the drivers send them. */
    private static final Pattern LOCK_CALL = Pattern.compile(
            "\\bpg_advisory(_xact)?_lock(_shared)?\\s*\\(|\\bget_lock\\s*\\(|\\bsp_getapplock\\b|\\bdbms_lock\\.request\\b|^\\s*lock\\s+(table\\s+)?\\w");
    private static final Pattern TRANSACTION_SCOPED = Pattern.compile("\\bpg_advisory_xact_lock|\\bsp_getapplock\\b|^\\s*lock\\s");

    @Override public String id() { return "db-app-lock"; }
    @Override public String title() { return "Requests queue on a lock the application takes in the database"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (the framework probes did not run)");
        Table t = calls.get();
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"sql".equalsIgnoreCase(t.text(i, "kind")) || !isLockCall(t.text(i, "target"))) continue;
            if (top < 0 || t.number(i, "shareOfRequestTime") > t.number(top, "shareOfRequestTime")) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (top < 0) return b.summary("no statement took an advisory or table lock.").build();
        String ref = "tables/calls#" + top;
        double share = t.number(top, "shareOfRequestTime");
        String target = t.text(top, "target");
        Numbers n = new Numbers();
        String what = "sql " + SlowCallsRule.quote(target) + " waits " + n.tag(Fmt.ms(t.number(top, "totalMs") / t.number(top, "count")), ref)
                + " a call (P99 " + n.tag(Fmt.ms(t.number(top, "p99Ms")), ref) + "), "
                + (Double.isFinite(share) ? n.tag(Fmt.pct(share), ref) : "an unknown share") + " of request time";
        if (!(share >= SHARE_WARN)) return b.evidence(ref).summary(what + ": the lock is seldom contended.").numbers(n.refs()).build();
        boolean untilCommit = TRANSACTION_SCOPED.matcher(target.toLowerCase(Locale.ROOT)).find();
        String held = heldWork(t, top, n);
        String caller = Evidence.text(t, top, "caller");
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).evidence(ref)
                .culprit(caller.isEmpty() ? target : caller)
                .summary(what + SlowCallsRule.calledFrom(t, top) + ": every request takes the same lock, so they run what it guards"
                        + " one at a time" + (held.isEmpty() ? "" : "; under it, until " + (untilCommit ? "the commit" : "the unlock")
                        + ", the same code runs " + held) + ".")
                .numbers(n.refs())
                .explanation("A lock taken in the database serializes the transactions that take it: each waits for the one"
                        + " before it to " + (untilCommit ? "commit" : "release it") + ", so the wait grows with the number of"
                        + " requests in flight while the work under the lock stays short. The waiters hold pooled connections and"
                        + " request threads meanwhile, so the pool and the container fill up behind the lock and look too small.")
                .fix("Take the lock for less: lock per key (pg_advisory_xact_lock(hashtext(key)), or the entity's own row with"
                        + " SELECT ... FOR UPDATE) instead of one lock for every request; keep only the statements that need it"
                        + " under it and commit right after. To hand out numbers, use a sequence or an identity column"
                        + " (nextval), which gives each transaction its own without making them wait for each other, instead of"
                        + " max(...) + 1 under a lock.")
                .confirm(ev.database().lockWaits())
                .explains("pool-size").explains("pool-starvation").explains("slow-calls").explains("tail-latency")
                .explains("thread-oversubscription").explains("container-queue").explains("db-row-lock").explains("request-waits")
                .build();
    }

    static boolean isLockCall(String sql) {
        return sql != null && LOCK_CALL.matcher(sql.toLowerCase(Locale.ROOT)).find();
    }

    /**
     * The other statements the lock's own application code runs (their call paths share an
     * application method with the lock's), slowest first: "sql "select ..." (0.74 ms a call)".
     */
    private static String heldWork(Table t, int lock, Numbers n) {
        List<String> lockMethods = applicationMethods(t, lock);
        List<Integer> rows = new ArrayList<>();
        for (int i = 0; i < t.rows().size(); i++) {
            if (i == lock || !"sql".equalsIgnoreCase(t.text(i, "kind"))) continue;
            if (applicationMethods(t, i).stream().anyMatch(lockMethods::contains)) rows.add(i);
        }
        rows.sort((a, c) -> Double.compare(mean(t, c), mean(t, a)));
        List<String> out = new ArrayList<>();
        for (int i : rows.subList(0, Math.min(2, rows.size()))) {
            out.add("sql " + SlowCallsRule.quote(t.text(i, "target")) + " (" + n.tag(Fmt.ms(mean(t, i)), "tables/calls#" + i) + " a call)");
        }
        return String.join(" and ", out);
    }

    private static double mean(Table t, int row) {
        return t.number(row, "totalMs") / t.number(row, "count");
    }

    /** The application's methods (no line) on a row's call path, or its caller. */
    private static List<String> applicationMethods(Table t, int row) {
        List<String> out = new ArrayList<>(DbRowLockRule.methods(Evidence.text(t, row, "callPath"), Evidence.text(t, row, "caller")));
        out.removeIf(m -> !Frames.isApplication(m));
        return out;
    }
}
