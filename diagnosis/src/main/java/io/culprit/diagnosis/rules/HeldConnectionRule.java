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
        if (top < 0) return b.summary("no remote call was made while its thread held a pooled connection.").build();

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
