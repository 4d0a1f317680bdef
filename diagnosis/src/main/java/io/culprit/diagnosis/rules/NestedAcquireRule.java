package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * Requests that hold a pooled connection while they wait for another: the pool deadlocks once as
 * many requests hold one as the pool has, and only timeouts break it. The evidence is arithmetic:
 * connections lent plus acquires waiting exceed the requests in flight, so some requests are
 * counted twice, once holding and once waiting, while no more are lent than requests are in flight
 * (more would be connections no request holds: a leak). A blind reactive service (session 41) read an
 * outer query's rows and ran a query per row inside that read ({@code concatMap} on the outer
 * Flux, each inner query through the pool): at 16 requests in flight on a pool of 10, every
 * window held 10 connections with 16 acquires waiting, every request timed out, and culprit
 * named no cause. The JDBC form is the same (a second {@code getConnection} inside a method that
 * holds one: HikariCP's wiki sizes such pools at threads × (connections each − 1) + 1).
 */
public final class NestedAcquireRule implements Rule {
    /** Windows with requests counted twice, of the windows where both were read: most of the run. */
    static final double WINDOWS_SHARE = 0.5;
    /** Lent + waiting over the requests in flight by this many, or a quarter of them: not a sampling skew. */
    static final double MIN_SURPLUS = 2;
    static final double SURPLUS_SHARE = 0.25;

    @Override public String id() { return "nested-acquire"; }
    @Override public String title() { return "Requests hold a pooled connection while waiting for another"; }

    @Override
    public Finding evaluate(Evidence ev) {
        double[][] active = ev.aligned("pools", "dbActive", "requests", "inFlight");
        double[][] pending = ev.aligned("pools", "dbPending", "requests", "inFlight");
        if (active.length == 0 || pending.length != active.length) {
            return notAssessed("needs series pools#dbActive, pools#dbPending and requests#inFlight");
        }
        int windows = 0, doubled = 0;
        double worst = 0, worstActive = 0, worstPending = 0, worstInFlight = 0;
        for (int i = 0; i < active.length; i++) {
            double lent = active[i][0], waiting = pending[i][0], inFlight = active[i][1];
            if (!Double.isFinite(lent) || !Double.isFinite(waiting) || !(inFlight > 0)) continue;
            windows++;
            double surplus = lent + waiting - inFlight;
            // More lent than requests in flight: connections no request holds (a leak, a background job), not nesting.
            if (waiting >= 1 && lent <= inFlight && surplus >= Math.max(MIN_SURPLUS, SURPLUS_SHARE * inFlight)) {
                doubled++;
                if (surplus > worst) { worst = surplus; worstActive = lent; worstPending = waiting; worstInFlight = inFlight; }
            }
        }
        Numbers n = new Numbers();
        Finding.Builder b = finding(Severity.OK).evidence("series/pools#dbPending").evidence("series/requests#inFlight");
        if (windows == 0) return notAssessed("no window read both the pool and the requests in flight");
        double share = (double) doubled / windows;
        if (share < WINDOWS_SHARE) {
            return b.summary("connections lent and acquires waiting exceeded the requests in flight in "
                    + n.tag(doubled + " of " + windows, "series/pools#dbPending") + " windows: no request waited for a second connection"
                    + " while holding one.").numbers(n.refs()).build();
        }
        double errors = ev.stats("requests", "errors").map(s -> s.sum()).orElse(0.0);
        double requests = ev.requestCount();
        boolean stalled = requests > 0 && errors >= 0.5 * requests;
        int inner = innerStatement(ev);
        String innerText = inner < 0 ? "" : "; the repeated statement is " + SlowCallsRule.quote(ev.rows("calls").orElseThrow().text(inner, "target"))
                + " (" + n.tag(Fmt.num(ev.perRequest(ev.rows("calls").orElseThrow(), inner)), "tables/calls#" + inner) + " per request)";
        return b.severity(stalled || share >= 0.9 ? Severity.CRITICAL : Severity.WARN).score(0.5 + 0.4 * share)
                .culprit(inner < 0 ? "connection pool" : ev.rows("calls").orElseThrow().text(inner, "target"))
                .summary(n.tag(Fmt.num(worstActive), "series/pools#dbActive") + " connections lent and "
                        + n.tag(Fmt.num(worstPending), "series/pools#dbPending") + " acquires waiting with only "
                        + n.tag(Fmt.num(worstInFlight), "series/requests#inFlight") + " requests in flight (in "
                        + n.tag(doubled + " of " + windows, "series/pools#dbPending") + " windows): requests hold a connection while"
                        + " they wait for another, and once every connection is held so, none comes back"
                        + (stalled ? " (" + n.tag(Fmt.num(errors), "series/requests#errors") + " of " + Fmt.num(requests) + " requests failed)" : "")
                        + innerText + ".")
                .numbers(n.refs())
                .explanation("A request takes a second connection while its first is still lent: a query per row run while the"
                        + " outer query's rows are still being read (each inner query through the pool), a method that opens its"
                        + " own connection inside a transaction, a REQUIRES_NEW. When as many requests hold one connection as the"
                        + " pool has, each waits for a connection only another waiting request could give back: a deadlock that"
                        + " lasts until acquire or request timeouts cancel some of them.")
                .fix("Take one connection per request: read the outer query to its end before the inner queries (collectList, then"
                        + " the queries), or fetch them in one query (a join, or WHERE id = ANY(:ids)), and run a transaction's"
                        + " statements on its own connection. Until then the pool needs requests in flight × (connections each − 1)"
                        + " + 1 connections.")
                .confirm(ev.confirm("calls") + " and the pool's figures once a second: " + ev.confirm("pools"))
                .explains("request-errors").explains("pool-starvation").explains("pool-size").explains("slow-calls")
                .explains("tail-latency").explains("connection-leak").explains("chatty-calls")
                .build();
    }

    /** The SQL statement run most per request (at least twice), the inner query of the nesting; -1 without one. */
    private static int innerStatement(Evidence ev) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return -1;
        Table t = calls.get();
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"sql".equals(t.text(i, "kind")) || SlowCallsRule.background(t, i)) continue;
            double per = ev.perRequest(t, i);
            if (per >= 2 && (best < 0 || per > ev.perRequest(t, best))) best = i;
        }
        return best;
    }
}
