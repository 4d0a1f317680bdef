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
import java.util.Optional;

/**
 * A remote call made while the calling thread holds a pooled connection: a transaction around an
 * HTTP or Redis call, or a connection opened before the call and closed after it. The connection
 * sits idle for the call's whole duration and no other request can have it, so the pool's demand
 * is rps × (SQL + remote time). Pool-size then reads "too small" and pool-starvation "threads wait",
 * both true, and growing the pool only moves the queue to the database. The probes mark every
 * non-SQL call made while its thread held a pooled connection ({@code calls.heldMs}); Little's
 * Law turns that time into connections.
 */
public final class HeldConnectionRule implements Rule {
    /** A fifth of the connections' busy time spent waiting on another call: worth saying. */
    static final double SHARE_NOTED = 0.2;
    /** Half of it: the pool is mostly held by the remote call. */
    static final double SHARE_MAIN = 0.5;
    /** As pool-size: at 90 % mean utilisation the pool queues. */
    static final double PRESSED_UTILISATION = PoolSizeRule.UNDERSIZED_UTILISATION;

    @Override public String id() { return "connection-held"; }
    @Override public String title() { return "Pooled connections held across remote calls"; }

    /**
     * Lent connections whose statements keep less than this share of them busy sit idle between
     * statements: held across something no probe marked (an asynchronous call, a wait).
     */
    static final double IDLE_HELD = 0.25;
    /** The pool counts as full at this share of its size lent. */
    static final double FULL = 0.9;

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (the framework probes did not run)");
        Table t = calls.get();
        if (t.isEmpty()) return finding(Severity.OK).evidence("tables/calls").summary("no dependency call recorded.").build();
        if (!t.columns().contains("heldMs") && !t.rows().get(0).containsKey("heldMs")) return notAssessed("table calls has no heldMs (recorded by an older agent)");
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if ("sql".equals(t.text(i, "kind")) || !(t.number(i, "heldMs") > 0)) continue;
            if (top < 0 || t.number(i, "heldMs") > t.number(top, "heldMs")) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (top < 0) {
            // No thread held a connection across a call: a reactive chain may still hold one across its steps.
            Finding idle = idleHeld(ev, t);
            return idle != null ? idle : b.summary("no remote call was made while its thread held a pooled connection.").build();
        }

        Numbers n = new Numbers();
        String ref = "tables/calls#" + top;
        double observedMs = ev.observedSeconds() * 1000;
        double heldMs = t.number(top, "heldMs");
        double heldConnections = observedMs > 0 ? heldMs / observedMs : Double.NaN;
        double count = t.number(top, "count");
        String target = t.text(top, "kind") + " " + SlowCallsRule.quote(t.text(top, "target"));
        String caller = Evidence.text(t, top, "caller");
        boolean located = !caller.isEmpty() && !caller.startsWith("(");
        b.evidence(ref).culprit(located ? caller : t.text(top, "target"));

        Optional<ColumnStats> usage = ev.stats("pools", "dbUsageMsMean");
        Optional<ColumnStats> rps = ev.stats("requests", "rps");
        Optional<ColumnStats> total = ev.stats("pools", "dbTotal");
        String what = target + " ran " + n.tag(Fmt.ms(heldMs), ref) + " in " + n.tag(Fmt.ms(observedMs), ref)
                + " while its thread held a pooled connection (" + n.tag(Fmt.ms(count > 0 ? t.number(top, "totalMs") / count : Double.NaN), ref)
                + " a call)" + SlowCallsRule.calledFrom(t, top);
        if (usage.isEmpty() || rps.isEmpty() || total.isEmpty()) {
            return b.severity(Severity.INFO).score(0.1).summary(what + "; the pool's usage was not recorded.").numbers(n.refs())
                    .explanation(explanation()).fix(fix(target)).confirm(ev.confirm(confirm(caller))).build();
        }
        // As pool-size reads Little's Law: in the busier third, where the trouble was.
        double throughput = Math.max(rps.get().lastThird(), rps.get().firstThird());
        double usageMs = Math.max(usage.get().lastThird(), usage.get().firstThird());
        double busy = throughput * usageMs / 1000;
        double size = total.get().max();
        double share = busy > 0 ? Math.min(1, heldConnections / busy) : Double.NaN;
        double util = size > 0 ? busy / size : Double.NaN;
        double pending = ev.stats("pools", "dbPending").map(ColumnStats::max).orElse(0.0);
        String usageRef = "series/pools#dbUsageMsMean";
        String law = n.tag(Fmt.num(heldConnections), ref) + " of the " + n.tag(Fmt.num(busy), usageRef) + " connections busy on average ("
                + n.tag(Fmt.pct(share), usageRef) + ") were held across it; pool of " + n.tag(Fmt.num(size), "series/pools#dbTotal")
                + ", " + n.tag(Fmt.pct(util), usageRef) + " utilised"
                + (pending >= 1 ? ", up to " + n.tag(Fmt.num(pending), "series/pools#dbPending") + " threads waiting for a connection" : "");
        b.evidence(usageRef).evidence("series/pools#dbTotal").numbers(n.refs());
        if (!(share >= SHARE_NOTED)) return b.summary(what + "; " + law + ".").build();
        boolean pressed = util >= PRESSED_UTILISATION && pending >= 1;
        Severity sev = pressed ? (share >= SHARE_MAIN ? Severity.CRITICAL : Severity.WARN)
                : util >= PoolSizeRule.RULED_OUT_UTILISATION && share >= SHARE_MAIN ? Severity.WARN : Severity.INFO;
        b.severity(sev).score(share).summary(what + "; " + law + ".")
                .explanation(explanation()).fix(fix(target)).confirm(ev.confirm(confirm(caller)));
        if (sev != Severity.INFO) {
            b.explains("pool-size").explains("pool-starvation").explains("tail-latency").explains("request-errors")
                    .explains("thread-oversubscription");
        }
        return b.build();
    }

    /**
     * A pool whose lent connections run statements only a small part of the time, full and with
     * requests queueing for it: a reactive client (the Vert.x SQL client's withTransaction, R2DBC)
     * holds a connection across the other calls a transaction's chain makes, and no thread holds it,
     * so no call is marked {@code heldMs}. The lent connections (dbActive) against the connections
     * the statements keep busy (their time over the run's) tell it without knowing the call. A blind
     * Vert.x service (session 42) opened a transaction, called a 25 ms tax gateway inside it, then
     * wrote: its 4 connections were lent all the time and ran SQL 0.06 of it; pool-size said "too
     * small". Null when the evidence does not show it.
     */
    private Finding idleHeld(Evidence ev, Table t) {
        Optional<ColumnStats> active = ev.stats("pools", "dbActive"), total = ev.stats("pools", "dbTotal"), pending = ev.stats("pools", "dbPending");
        if (active.isEmpty() || total.isEmpty() || pending.isEmpty()) return null;
        double size = total.get().max(), lent = active.get().median(), waiting = pending.get().median();
        double statements = PoolSizeRule.statementsBusy(ev);
        if (!(size > 0 && lent >= FULL * size && waiting >= 1 && statements < IDLE_HELD * lent)) return null;
        int top = LockContentionRule.costliestSql(ev);
        // A blocking driver's connection between statements is still the thread's (reading rows, mapping
        // them, a leak): only a reactive client's lent connection is held by nothing but its chain.
        if (top < 0 || Evidence.text(t, top, "reactiveClient").isEmpty()) return null;
        Numbers n = new Numbers();
        String callers = sqlCallers(t);
        String share = Fmt.pct(statements / lent);
        int across = heldAcross(ev, t, lent - statements);
        String acrossTarget = across < 0 ? null : t.text(across, "kind") + " " + SlowCallsRule.quote(t.text(across, "target"));
        return finding(Severity.CRITICAL).score(0.8).evidence("series/pools#dbActive").evidence("tables/calls")
                .culprit(top >= 0 && !Evidence.text(t, top, "caller").isEmpty() ? Evidence.text(t, top, "caller") : "connection held between statements")
                .summary("the pool's " + n.tag(Fmt.num(size), "series/pools#dbTotal") + " connections were lent " + n.tag(Fmt.num(lent), "series/pools#dbActive")
                        + " at a time (median) while their statements kept only " + n.tag(Fmt.num(statements), "tables/calls") + " busy on average ("
                        + share + "), and " + n.tag(Fmt.num(waiting), "series/pools#dbPending") + " requests waited for one: the connections sit idle"
                        + " between statements, held across " + (acrossTarget == null ? "another call or wait"
                        : acrossTarget + ", whose calls (" + n.tag(Fmt.ms(t.number(across, "totalMs") / t.number(across, "count")), "tables/calls#" + across)
                        + " each) keep " + n.tag(Fmt.num(t.number(across, "totalMs") / (ev.observedSeconds() * 1000)), "tables/calls#" + across)
                        + " in flight: as many as the idle connections") + (callers.isEmpty() ? "" : ", by " + callers) + ".")
                .numbers(n.refs())
                .explanation("A connection taken for a transaction stays lent until it commits, whatever runs in between: a"
                        + " reactive chain that calls another service between its statements (Vert.x's pool.withTransaction,"
                        + " R2DBC's usingWhen) holds it for that call's whole time with no thread blocked, so no thread dump"
                        + " shows it. The pool must then cover rps × (SQL + the other calls' time), and requests queue for it"
                        + " while the database idles. A bigger pool only moves the queue to the database.")
                .fix((acrossTarget == null ? "" : "Make " + acrossTarget + " outside the transaction. ")
                        + "Keep only the statements inside the transaction: read what the remote call needs without one (or in"
                        + " its own short transaction), make the call, then open a short transaction for the writes"
                        + " (pool.withTransaction around the statements only). The pool then needs only rps × the SQL time.")
                .confirm(ev.confirm("calls") + " (each statement's time against the connections lent in \"pools\")")
                .explains("pool-size").explains("pool-starvation").explains("nested-acquire").explains("capped-calls")
                .explains("tail-latency").explains("request-errors")
                .build();
    }

    /**
     * The non-SQL call whose calls keep about as many in flight (Little's law: their time over the
     * run's) as the lent connections that run no statement: what they are held across. -1 if none
     * comes within a third of it.
     */
    private static int heldAcross(Evidence ev, Table t, double idleConnections) {
        double wallMs = ev.observedSeconds() * 1000;
        int best = -1;
        double bestGap = Double.MAX_VALUE;
        for (int i = 0; i < t.rows().size(); i++) {
            if ("sql".equals(t.text(i, "kind")) || SlowCallsRule.background(t, i) || !(wallMs > 0)) continue;
            double gap = Math.abs(t.number(i, "totalMs") / wallMs - idleConnections);
            if (gap < bestGap && gap <= idleConnections / 3) {
                best = i;
                bestGap = gap;
            }
        }
        return best;
    }

    /** The distinct callers of the requests' SQL, in the table's order, at most three. */
    private static String sqlCallers(Table t) {
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>();
        for (int i = 0; i < t.rows().size() && out.size() < 3; i++) {
            String c = Evidence.text(t, i, "caller");
            if ("sql".equals(t.text(i, "kind")) && !SlowCallsRule.background(t, i) && !c.isEmpty() && !c.startsWith("(")) out.add(c);
        }
        return String.join(" and ", out);
    }

    private static String explanation() {
        return "A connection taken before a remote call and returned after it sits idle for the whole call, and no"
                + " other request can have it: the pool must cover rps × (SQL + remote time). A transaction around an"
                + " HTTP or Redis call does this, as does a connection kept open for the whole request (open-in-view)."
                + " A bigger pool only moves the queue to the database.";
    }

    private static String fix(String target) {
        return "Make " + target + " outside the connection: before the transaction starts or after it commits (split"
                + " the @Transactional method, or call the dependency first and pass its answer in); with JPA, set"
                + " spring.jpa.open-in-view=false. The pool then needs only rps × the SQL time.";
    }

    /** A trace of the calling method shows the connection taken, the remote call, and the connection returned, in order. */
    private static String confirm(String caller) {
        String target = caller.isEmpty() || caller.startsWith("(") ? null : Frames.classAndMethod(caller);
        return target == null ? "calls" : "trace " + target + " -n 3";
    }
}
