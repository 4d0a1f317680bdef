package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Transactions the database aborts because they collided with others on the same rows
 * (serialization failures, deadlocks, lock timeouts, optimistic-lock version checks), read from
 * the exceptions the service threw: each abort throws the attempt's work away, and the service
 * either retries it or fails the request. A service outside the lab that deposited into four hot
 * accounts under SERIALIZABLE, retrying on SQLState 40001, lost 0.35 attempts per request to
 * "could not serialize access" and read "no root cause found": the exceptions were caught, their
 * rate too low for caught-exceptions' cost, and no lock was waited on. Keyed to the databases'
 * own messages and the JDBC, Spring and JPA exception types, never to the service.
 */
public final class TransactionConflictsRule implements Rule {
    /**
     * One request in twenty losing an attempt, and enough of them to be a pattern: ten, since a
     * deadlock costs a second or more (found only after the database's deadlock timeout), so a run
     * sees few of them (38 in the 79 requests of a service outside the lab).
     */
    static final double PER_REQUEST_WARN = 0.05;
    static final double MIN_CONFLICTS = 10;
    /** One in five: a fifth of the transactions' work and more is done twice. */
    static final double PER_REQUEST_CRITICAL = 0.2;

    /** The kinds of conflict, each with the words the databases and libraries use for it. */
    enum Kind {
        SERIALIZATION("serialization failures",
                new String[] {"could not serialize access", "can't serialize access", "ora-08177",
                        "snapshot isolation transaction aborted", "record has changed since last read", "concurrent update in table"},
                new String[] {"CannotSerializeTransactionException"}),
        DEADLOCK("deadlocks",
                new String[] {"deadlock detected", "deadlock found when trying to get lock", "was deadlocked on lock resources",
                        "ora-00060"},
                new String[] {"DeadlockLoserDataAccessException"}),
        LOCK_TIMEOUT("lock waits that timed out",
                new String[] {"lock wait timeout exceeded", "canceling statement due to lock timeout", "could not obtain lock",
                        "timeout trying to lock table"},
                new String[] {"PessimisticLockException", "LockTimeoutException", "LockAcquisitionException"}),
        OPTIMISTIC("optimistic-lock failures (a row's version changed under the transaction)",
                new String[] {"row was updated or deleted by another transaction", "batch update returned unexpected row count"},
                new String[] {"OptimisticLockException", "OptimisticLockingFailureException", "StaleObjectStateException",
                        "StaleStateException"});

        final String what;
        private final String[] messages;
        private final String[] types;

        Kind(String what, String[] messages, String[] types) {
            this.what = what;
            this.messages = messages;
            this.types = types;
        }

        static Kind of(String type, String message) {
            String m = message == null ? "" : message.toLowerCase(Locale.ROOT);
            String simple = type == null ? "" : type.substring(type.lastIndexOf('.') + 1);
            for (Kind k : values()) {
                for (String s : k.messages) if (m.contains(s)) return k;
                for (String s : k.types) if (simple.endsWith(s)) return k;
            }
            return null;
        }
    }

    @Override public String id() { return "transaction-conflicts"; }
    @Override public String title() { return "Transactions abort on conflicts with each other and are redone"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> table = ev.table("exceptions");
        if (table.isEmpty()) return notAssessed("no table exceptions");
        Table t = table.get();
        // The same abort is thrown again as each layer translates it (the driver's, Spring's, JPA's): count the largest.
        int top = -1;
        Kind kind = null;
        for (int i = 0; i < t.rows().size(); i++) {
            Kind k = Kind.of(t.text(i, "type"), Evidence.text(t, i, "message"));
            if (k != null && (top < 0 || t.number(i, "count") > t.number(top, "count"))) {
                top = i;
                kind = k;
            }
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/exceptions");
        if (top < 0) return b.summary("no transaction aborted on a serialization failure, deadlock, lock timeout or optimistic-lock check.").build();
        double conflicts = t.number(top, "count");
        double requests = ev.requestCount();
        double perRequest = requests > 0 ? conflicts / requests : Double.NaN;
        String ref = "tables/exceptions#" + top;
        Numbers n = new Numbers();
        int statement = failingStatement(ev);
        String message = Evidence.text(t, top, "message");
        String what = n.tag(Fmt.num(conflicts), ref) + " transaction attempts aborted by " + kind.what
                + (Double.isFinite(perRequest) ? ", " + n.tag(Fmt.num(perRequest), ref) + " per request" : "")
                + " (" + simpleName(t.text(top, "type")) + (message.isEmpty() ? "" : ": \"" + clip(message) + "\"") + ")";
        if (!(perRequest >= PER_REQUEST_WARN) || conflicts < MIN_CONFLICTS) {
            return b.summary(what + ": too few to cost the service.").numbers(n.refs()).build();
        }
        Table calls = statement >= 0 ? ev.rows("calls").orElseThrow() : null;
        String cref = "tables/calls#" + statement;
        if (statement >= 0) {
            what += "; the statement that fails is " + SlowCallsRule.quote(calls.text(statement, "target")) + " ("
                    + n.tag(Fmt.num(calls.number(statement, "errors")), cref) + " of its " + n.tag(Fmt.num(calls.number(statement, "count")), cref)
                    + " executions)";
        }
        double failed = ev.stats("requests", "errors").map(ColumnStats::sum).orElse(Double.NaN);
        boolean retried = Double.isFinite(failed) && failed * 2 < conflicts;
        if (Double.isFinite(failed)) {
            what += !retried ? "; " + n.tag(Fmt.num(failed), "series/requests#errors") + " requests failed"
                    : failed == 0 ? "; the service retries them: no request failed"
                    : "; the service retries them: only " + n.tag(Fmt.num(failed), "series/requests#errors") + " requests failed";
        }
        if (statement < 0) {
            String[] checked = versionCheck(t);
            if (checked[0] != null) what += "; the version check that fails is " + SlowCallsRule.quote(checked[0]);
            if (checked[1] != null) what += (checked[0] != null ? ", on " : "; the row: ") + checked[1];
        }
        String culprit = applicationFrame(t, top);
        if (culprit == null && statement >= 0) culprit = Evidence.text(calls, statement, "caller");
        Severity sev = perRequest >= PER_REQUEST_CRITICAL ? Severity.CRITICAL : Severity.WARN;
        return b.severity(sev).score(Math.min(1, perRequest)).evidence(ref).culprit(culprit == null || culprit.isEmpty() ? null : culprit)
                .summary(what + ".")
                .numbers(n.refs())
                .explanation("Two transactions that change the same rows cannot both commit under SERIALIZABLE or"
                        + " REPEATABLE READ, or when a version column guards the row, and two that lock rows in"
                        + " opposite orders deadlock: the database aborts one, and its work is thrown away. "
                        + (kind == Kind.DEADLOCK ? "A deadlock is found only after the database's deadlock timeout"
                        + " (PostgreSQL's deadlock_timeout, 1 s by default; InnoDB detects at once unless detection is off), and"
                        + " meanwhile both transactions hold their locks and every request needing those rows queues behind them. "
                        : kind == Kind.LOCK_TIMEOUT ? "A lock timeout aborts a transaction only after it waited the whole timeout"
                        + " behind the holder. " : "")
                        + (retried ? "The service runs it again, so each abort costs a whole attempt of statements and"
                        + " round trips, " : "The request fails, ")
                        + "and the more requests touch the same rows at once, the more of them collide: the conflicts"
                        + " grow faster than the load, and the hot rows, not the CPU or the pool, set the service's capacity.")
                .fix((kind == Kind.DEADLOCK
                        ? "Take the rows' locks in one order in every transaction (sort the ids before updating them), and"
                        + " keep transactions short. "
                        : kind == Kind.OPTIMISTIC
                        ? "Make the change one atomic UPDATE (with JPA a @Modifying @Query such as \"update Account a set"
                        + " a.balance = a.balance + ?2 where a.id = ?1\"), or read the entity with a pessimistic"
                        + " lock (@Lock(LockModeType.PESSIMISTIC_WRITE), a SELECT … FOR UPDATE) so that colliding transactions"
                        + " queue instead of failing: a version check suits rows that are seldom written at once. "
                        : "Make the change one atomic statement (UPDATE … SET balance = balance + ? WHERE id = ?), which"
                        + " READ COMMITTED applies without an abort, or lock the row first (SELECT … FOR UPDATE) so that"
                        + " colliding transactions queue instead of failing; keep SERIALIZABLE for the transactions that need it. ")
                        + "If one row takes every write (a counter, a balance), spread it over several rows summed on read."
                        + " Retry what still conflicts with a capped, jittered back-off and a limit on attempts.")
                .confirm(ev.confirm("calls") + " (the failing statement's errors against its executions)")
                .explains("caught-exceptions").explains("request-errors").explains("db-row-lock").explains("tail-latency")
                .build();
    }

    /** The {@code sql} row of {@code calls} with the most errors, or -1. */
    private static int failingStatement(Evidence ev) {
        Table t = ev.rows("calls").orElse(null);
        if (t == null) return -1;
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"sql".equals(t.text(i, "kind")) || !(t.number(i, "errors") > 0)) continue;
            if (best < 0 || t.number(i, "errors") > t.number(best, "errors")) best = i;
        }
        return best;
    }

    /**
     * The application's frame under the abort: the top row's, else that of another row of a
     * conflict (the same abort translated by another layer, whose stack is cut at another depth:
     * Hibernate's StaleObjectStateException is thrown 30 frames deeper than the application's
     * save, Spring's translation of it a few frames above it).
     */
    private static String applicationFrame(Table t, int top) {
        String f = applicationFrame(Evidence.stack(t, top, "stack"));
        for (int i = 0; f == null && i < t.rows().size(); i++) {
            if (Kind.of(t.text(i, "type"), Evidence.text(t, i, "message")) != null) f = applicationFrame(Evidence.stack(t, i, "stack"));
        }
        return f;
    }

    private static String applicationFrame(List<String> stack) {
        for (String f : stack) if (Frames.isApplication(f)) return f;
        return null;
    }

    private static final Pattern STATEMENT_EXECUTED = Pattern.compile("statement executed: (.+)$");
    private static final Pattern ENTITY_ROW = Pattern.compile("\\[([\\w.$]+)#([^\\]]+)\\]");

    /**
     * {statement, entity#id} an optimistic-lock failure names in its messages, each null when none
     * does: Hibernate's StaleStateException gives the UPDATE whose version check matched no row
     * ("… statement executed: update … where id=? and version=?"), and JPA's and Spring's
     * translations the entity and its id ("[com.acme.Counter#7]"). A version check that fails
     * returns no error to the driver, so no call in {@code calls} failed to name it.
     */
    static String[] versionCheck(Table t) {
        String statement = null, row = null;
        for (int i = 0; i < t.rows().size(); i++) {
            if (Kind.of(t.text(i, "type"), Evidence.text(t, i, "message")) != Kind.OPTIMISTIC) continue;
            String m = Evidence.text(t, i, "message");
            Matcher sm = STATEMENT_EXECUTED.matcher(m);
            if (statement == null && sm.find()) statement = sm.group(1).trim();
            Matcher rm = ENTITY_ROW.matcher(m);
            if (row == null && rm.find()) row = rm.group(1) + "#" + rm.group(2);
        }
        return new String[] {statement, row};
    }

    private static String simpleName(String type) {
        return type.substring(type.lastIndexOf('.') + 1);
    }

    private static String clip(String message) {
        String first = message.lines().findFirst().orElse("");
        return first.length() > 120 ? first.substring(0, 117) + "…" : first;
    }
}
