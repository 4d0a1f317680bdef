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
        Optional<Table> waits = ev.rows("db-waits");
        // Waits inside the database's lock code are direct evidence and name the calling method;
        // statement timings only suggest a lock. Prefer the waits when they show a problem.
        Finding fromWaits = waits.map(w -> fromWaits(ev, w, calls)).orElse(null);
        if (fromWaits != null && fromWaits.isProblem()) return fromWaits;
        if (calls.isEmpty()) return fromWaits != null ? fromWaits : notAssessed("no table db-locks, calls or db-waits");
        Table t = calls.get();
        int top = slowLocking(t);
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (top < 0 && fromWaits != null) return fromWaits;
        if (top < 0) return b.summary("no locking SQL statement over " + Fmt.ms(SlowCallsRule.SQL_SLOW_MS) + " at P99.").build();
        double share = t.number(top, "shareOfRequestTime");
        Numbers n = new Numbers();
        Severity sev = share >= SHARE_CRITICAL ? Severity.WARN : share >= SHARE_WARN ? Severity.INFO : Severity.OK;
        String target = t.text(top, "target");
        int across = heldAcross(t, top, ev.table("db-pools").isEmpty());
        b.severity(sev).score(share * 0.8).culprit(target).evidence("tables/calls#" + top)
                .numbers(n.refs())
                .explains("slow-calls").explains("pool-starvation").explains("pool-size").explains("tail-latency").explains("request-errors")
                .explains("thread-oversubscription")
                .explanation(EXPLANATION).fix(FIX)
                .confirm(ev.database().lockWaits());
        String summary = "locking statement " + SlowCallsRule.quote(target) + " takes " + n.tag(Fmt.pct(share), "tables/calls#" + top)
                + " of request time (P99 " + n.tag(Fmt.ms(t.number(top, "p99Ms")), "tables/calls#" + top) + ")";
        if (across < 0 && queueHead(target)) {
            return b.summary(summary + QUEUE_CLAUSE + SlowCallsRule.calledFrom(t, top) + ".").explanation(QUEUE_EXPLANATION).fix(QUEUE_FIX)
                    .numbers(n.refs()).build();
        }
        if (across < 0) {
            b.summary(summary + ": likely waiting on a row lock (no db-locks evidence to prove it)" + SlowCallsRule.calledFrom(t, top) + ".");
            if (selectForUpdate(target)) b.fix(SELECT_FOR_UPDATE_FIX);
            return b.numbers(n.refs()).build();
        }
        // The lock is held for as long as the transaction that took it: here across a remote call.
        String ref = "tables/calls#" + across;
        // Held by the pool's record, the call's own site is where the transaction reaches out; by class alone, the locking method.
        boolean byHold = heldMostly(t, across);
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : sev).score(Math.max(share, 0.5))
                .culprit(byHold ? t.text(across, "caller") : t.text(top, "caller"))
                .evidence(ref).summary(summary + SlowCallsRule.calledFrom(t, top) + acrossClause(t, across, n, byHold))
                .numbers(n.refs())
                .explains("connection-held")
                .fix(ACROSS_FIX)
                .build();
    }

    /** The slowest-by-share locking statement with a P99 over the SQL threshold, or -1. */
    private static int slowLocking(Table t) {
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"sql".equalsIgnoreCase(t.text(i, "kind"))) continue;
            String sql = CallShape.sqlBody(t.text(i, "target")).toLowerCase(Locale.ROOT);
            if (!LOCKING.matcher(sql).find() || !(t.number(i, "p99Ms") >= SlowCallsRule.SQL_SLOW_MS)) continue;
            if (top < 0 || t.number(i, "shareOfRequestTime") > t.number(top, "shareOfRequestTime")) top = i;
        }
        return top;
    }

    /** "; the same code then calls http … at … (17 ms a call) while holding its connection: …". */
    private static String acrossClause(Table t, int across, Numbers n, boolean byHold) {
        String ref = "tables/calls#" + across;
        return "; the same code then calls " + t.text(across, "kind") + " " + SlowCallsRule.quote(t.text(across, "target")) + " at "
                + t.text(across, "caller") + " (" + n.tag(Fmt.ms(t.number(across, "totalMs") / t.number(across, "count")), ref)
                + " a call) " + (byHold ? "while holding its connection" : "from the class whose transaction took the lock (the"
                + " server's connection pool is not one culprit reads, so the hold is inferred)")
                + ": the row stays locked across that call, and every request for the row waits for the others' calls in turn.";
    }

    private static final String ACROSS_FIX = "Take the remote call out of the transaction that locks the row: make it before the"
            + " locking statement (or after commit), so the lock is held only from the locking statement to its commit;"
            + " or move the locking statement to the end of the transaction, or drop the pessimistic lock for an optimistic one"
            + " (a version column, UPDATE ... WHERE version = ?).";

    /** A held call takes at least this share of its time with a pooled connection held: made inside the transaction. */
    static final double HELD_SHARE = 0.5;

    /**
     * The remote call made, while its thread held a pooled connection, by the same method as the
     * locking statement or from the same caller (a @Transactional service method calling a
     * repository and a client): inside the transaction that holds the row lock. The call that held
     * its connection longest, or -1.
     */
    private static int heldAcross(Table t, int locking, boolean poolUnread) {
        java.util.List<String> lockPath = methods(Evidence.text(t, locking, "callPath"), Evidence.text(t, locking, "caller"));
        if (lockPath.isEmpty()) return -1;
        String lockClass = classOf(lockPath.get(0));
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if ("sql".equalsIgnoreCase(t.text(i, "kind"))) continue;
            boolean held = heldMostly(t, i);
            java.util.List<String> path = methods(Evidence.text(t, i, "callPath"), Evidence.text(t, i, "caller"));
            // The locking statement's own method, or the one calling both (a @Transactional service method).
            // Or the locking statement's method calls the client's (FraudClient.check ← OrderNumbers.place).
            boolean sameCode = !path.isEmpty() && (path.get(0).equals(lockPath.get(0))
                    || path.size() > 1 && path.get(1).equals(lockPath.get(0))
                    || path.size() > 1 && lockPath.size() > 1 && path.get(1).equals(lockPath.get(1)));
            // A pool culprit does not read (a Jakarta EE server's own) says nothing of what was held: a call made
            // from the locking statement's class, as often as the statement, is taken as inside its transaction.
            boolean sameClass = poolUnread && !path.isEmpty() && t.number(i, "count") >= t.number(locking, "count") * SAME_CLASS_CALLS
                    && (classOf(path.get(0)).equals(lockClass) || path.size() > 1 && classOf(path.get(1)).equals(lockClass));
            if (!(held && sameCode) && !sameClass) continue;
            if (best < 0 || t.number(i, "totalMs") > t.number(best, "totalMs")) best = i;
        }
        return best;
    }

    /** A call from the locking class made at least this often per locking statement is taken as inside its transaction. */
    static final double SAME_CLASS_CALLS = 0.5;

    /** Whether the call of {@code row} spent {@link #HELD_SHARE} of its time with a pooled connection held. */
    private static boolean heldMostly(Table t, int row) {
        return t.number(row, "heldMs") >= HELD_SHARE * t.number(row, "totalMs");
    }

    /** {@code a.b.C.m} → {@code a.b.C}. */
    private static String classOf(String method) {
        int dot = method.lastIndexOf('.');
        return dot > 0 ? method.substring(0, dot) : method;
    }

    /** The methods of a call path ("a.B.m:1 ← c.D.n:2"), innermost first, without lines. */
    static java.util.List<String> methods(String callPath, String caller) {
        String path = callPath.isEmpty() ? caller : callPath;
        java.util.List<String> out = new java.util.ArrayList<>();
        if (path.isEmpty()) return out;
        for (String f : path.split(" ← ")) out.add(Frames.stripLine(f.trim()));
        return out;
    }

    private static final String EXPLANATION = "Concurrent transactions updating the same row serialize on its lock:"
            + " each waits for the previous to commit, so the statement's time grows with concurrency while the"
            + " database is idle, and connections and threads pile up behind it.";
    private static final String FIX = "Stop updating one hot row per request: shard the counter, apply the update"
            + " asynchronously or in batches, or keep the transaction holding the lock short (commit right after it).";

    /**
     * A work queue's head taken with a row lock: {@code SELECT … ORDER BY … LIMIT 1 FOR UPDATE}
     * without {@code SKIP LOCKED} (or {@code NOWAIT}). Every worker picks the same first row and
     * waits for the one that locked it to commit, then moves on to the next row together: the
     * queue is served one worker at a time. A claims service outside the lab read "shard the
     * counter" for its adjuster queue.
     */
    static boolean queueHead(String sql) {
        String s = CallShape.sqlBody(sql).toLowerCase(Locale.ROOT);
        return QUEUE_LOCK.matcher(s).find() && QUEUE_LIMIT.matcher(s).find() && !s.contains("skip locked") && !s.contains("nowait");
    }

    private static final Pattern QUEUE_LOCK = Pattern.compile("^\\s*select\\b.*\\bfor\\s+(no\\s+key\\s+)?update\\b", Pattern.DOTALL);
    private static final Pattern QUEUE_LIMIT = Pattern.compile("\\blimit\\b|\\bfetch\\s+(first|next)\\b|\\btop\\s*\\(?\\s*[?\\d]");
    private static final String QUEUE_CLAUSE = ": every worker locks the same first row (LIMIT … FOR UPDATE without SKIP LOCKED) and waits for"
            + " the one that holds it to commit, so the queue is served one request at a time";
    private static final String QUEUE_EXPLANATION = "A table used as a work queue, read with SELECT … ORDER BY … LIMIT n FOR UPDATE:"
            + " concurrent workers all pick the same head row, the first locks it, and the rest block on that lock until it commits;"
            + " then they all re-read and contend for the next row. Throughput is one row per transaction, whatever the workers.";
    private static final String QUEUE_FIX = "Add SKIP LOCKED to the queue's select (SELECT … FOR UPDATE SKIP LOCKED: PostgreSQL 9.5+,"
            + " MySQL 8, MariaDB 10.6, Oracle): each worker takes the first row no other holds; keep the transaction from the select to"
            + " the status update short.";

    /** A pessimistic read lock (SELECT … FOR UPDATE) that is not a queue's head: a row every request locks to check it. */
    static boolean selectForUpdate(String sql) {
        return sql != null && QUEUE_LOCK.matcher(CallShape.sqlBody(sql).toLowerCase(Locale.ROOT)).find() && !queueHead(sql);
    }

    static final String SELECT_FOR_UPDATE_FIX = "Lock less than the row every request needs: the SELECT … FOR UPDATE holds it until"
            + " commit, so all requests for it run one after another, with all the transaction's other statements and its commit"
            + " inside the lock. Lock only the rows this request changes (the children, SELECT … WHERE id IN (…) FOR UPDATE, in a fixed"
            + " order), or replace the check-then-write by one conditional UPDATE (UPDATE … SET left = left - ? WHERE id = ? AND left"
            + " >= ?, checking the count it returns) with no lock held across the transaction; move the rest out of it.";

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
        Numbers n = new Numbers();
        String row = "tables/db-locks#" + top;
        return finding(sev).score(share).culprit(query).evidence(row)
                .summary(n.tag(Fmt.num(t.number(top, "waits")), row) + " waits on a row lock" + (relation.isEmpty() ? "" : " of " + relation)
                        + " by " + SlowCallsRule.quote(query) + ", " + n.tag(Fmt.ms(t.number(top, "waitMs")), row) + " of waiting in total"
                        + (Double.isFinite(share) ? ": " + n.tag(Fmt.pct(share), "tables/db-locks") + " of request time" : "") + ".")
                .numbers(n.refs())
                .explains("slow-calls").explains("pool-starvation").explains("pool-size").explains("tail-latency").explains("request-errors")
                .explains("thread-oversubscription")
                .explanation(EXPLANATION).fix(FIX)
                .confirm(ev.database().lockWaits())
                .build();
    }

    /**
     * From JFR: request threads blocked inside a write statement's execution. A database lock frame
     * on the blocked stack (an embedded database's row lock) is direct evidence; a socket read under
     * a write is the client's view of a server-side wait, so it is reported as likely.
     */
    private Finding fromWaits(Evidence ev, Table t, Optional<Table> calls) {
        int top = -1;
        double waitMs = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!isWrite(t.text(i, "method"), Evidence.text(t, i, "lockFrame"))
                    || t.text(i, "method").equals("execute") && readsOnly(site(t, i), calls)) continue;
            waitMs += finite(t.number(i, "waitMs"));
            if (top < 0 || t.number(i, "waitMs") > t.number(top, "waitMs")) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/db-waits");
        double requestMs = ev.requestTimeMs();
        // Requests still in flight when measuring started or ended wait too: never more than all the time.
        double share = requestMs > 0 ? Math.min(1, waitMs / requestMs) : Double.NaN;
        Numbers n = new Numbers();
        if (top < 0 || !(share >= SHARE_WARN)) {
            return b.summary("requests blocked in write statements for " + n.tag(Fmt.ms(waitMs), "tables/db-waits")
                    + (Double.isFinite(share) ? " (" + n.tag(Fmt.pct(share), "tables/db-waits") + " of request time)" : "") + ".")
                    .numbers(n.refs()).build();
        }
        String lockFrame = Evidence.text(t, top, "lockFrame");
        String caller = site(t, top);
        String statement = calls.map(DbRowLockRule::slowestLockingStatement).orElse(null);
        boolean direct = !lockFrame.isEmpty();
        // The statements can show what the waits cannot: the lock held across a remote call in the same transaction.
        int locking = calls.map(DbRowLockRule::slowLocking).orElse(-1);
        boolean poolUnread = ev.table("db-pools").isEmpty();
        int across = locking < 0 ? -1 : heldAcross(calls.get(), locking, poolUnread);
        Severity sev = (direct || across >= 0) && share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN;
        boolean queue = queueHead(statement);
        return b.severity(sev).score(direct ? share : share * 0.8).culprit(caller).evidence("tables/db-waits#" + top)
                .summary("requests spend " + n.tag(Fmt.pct(share), "tables/db-waits") + " of their time blocked in " + t.text(top, "method")
                        + (caller.isEmpty() ? "" : " called from " + caller) + " (" + n.tag(Fmt.num(t.number(top, "events")), "tables/db-waits#" + top) + " waits, "
                        + n.tag(Fmt.ms(t.number(top, "waitMs")), "tables/db-waits#" + top) + ")"
                        + (direct ? ", waiting in the database's lock code (" + lockFrame + ")"
                        : ": likely a row lock held by another transaction (the wait is on the server)")
                        + (statement == null ? "" : "; the slowest locking statement is " + SlowCallsRule.quote(statement))
                        + (across >= 0 ? acrossClause(calls.get(), across, n,
                        heldMostly(calls.get(), across)) : queue ? QUEUE_CLAUSE + "." : "."))
                .numbers(n.refs())
                .explains("slow-calls").explains("pool-starvation").explains("pool-size").explains("tail-latency").explains("request-errors")
                .explains("thread-oversubscription").explains("lock-contention")
                .explains(across >= 0 ? "connection-held" : "lock-contention")
                .explanation(across < 0 && queue ? QUEUE_EXPLANATION : EXPLANATION)
                .fix(across >= 0 ? ACROSS_FIX : queue ? QUEUE_FIX : selectForUpdate(statement) ? SELECT_FOR_UPDATE_FIX : FIX)
                .confirm(ev.confirm("stack " + stackTarget(caller)) + "; " + ev.database().lockWaits())
                .build();
    }

    private static String slowestLockingStatement(Table t) {
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"sql".equalsIgnoreCase(t.text(i, "kind"))) continue;
            if (!LOCKING.matcher(CallShape.sqlBody(t.text(i, "target")).toLowerCase(Locale.ROOT)).find()) continue;
            if (top < 0 || t.number(i, "p99Ms") > t.number(top, "p99Ms")) top = i;
        }
        return top < 0 ? null : t.text(top, "target");
    }

    /**
     * Whether every SQL statement {@code caller} made (table {@code calls}) is a plain read, which
     * takes no row lock: {@code execute()} runs any statement, and MyBatis runs its selects through
     * it. A service outside the lab reading 750 rows per request through a mapper read "likely a
     * row lock held by another transaction" for the time its select took to arrive. Without a caller
     * (a stack cut before the application's frame), every statement in {@code calls} is weighed. False
     * when the statements are unknown.
     */
    static boolean readsOnly(String caller, Optional<Table> calls) {
        if (calls.isEmpty()) return false;
        Table t = calls.get();
        // A stack cut before the application's frame (MyBatis's nested selects run deep) names no caller: then every statement counts.
        String method = caller.isEmpty() ? null : Frames.stripLine(caller);
        boolean seen = false;
        for (int i = 0; i < t.rows().size(); i++) {
            String site = Evidence.text(t, i, "caller");
            if (!"sql".equalsIgnoreCase(t.text(i, "kind")) || method != null && (site.isEmpty() || !Frames.stripLine(site).equals(method))) continue;
            String sql = CallShape.sqlBody(t.text(i, "target")).toLowerCase(Locale.ROOT);
            if (!sql.startsWith("select") || LOCKING.matcher(sql).find()) return false;
            seen = true;
        }
        return seen;
    }

    /** A db-waits row's caller; "" when unknown, also as the "null" text that case files before session 36 hold. */
    private static String site(Table t, int row) {
        String caller = Evidence.text(t, row, "caller");
        return "null".equals(caller) ? "" : caller;
    }

    // executeQuery reads unless the database shows a lock (SELECT ... FOR UPDATE waits the same way).
    private static boolean isWrite(String method, String lockFrame) {
        return method != null && (method.contains("Update") || method.contains("Batch") || method.equals("execute") || !lockFrame.isEmpty());
    }

    private static String stackTarget(String frame) {
        String target = Frames.classAndMethod(frame);
        return target == null ? frame : target;
    }
}
