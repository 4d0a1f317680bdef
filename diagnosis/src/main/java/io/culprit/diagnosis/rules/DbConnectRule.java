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
 * Database connections opened on the request path: no pool between the code and the database
 * (Spring's {@code DriverManagerDataSource} configured by hand, legacy
 * {@code DriverManager.getConnection}), so every request pays a TCP connect, authentication and
 * the server's session start-up (a new backend process on PostgreSQL, whose first queries then run
 * on cold caches). Read from the {@code calls} table's {@code db-connect} rows, which the agent
 * records at {@code DriverManager}; a pool opens its connections through the driver, on its own
 * threads, and records none. A service outside the lab whose report endpoint did this served 40
 * requests a second at 200 ms and read "no root cause found": its statements ran on connections
 * no pool probe saw.
 */
public final class DbConnectRule implements Rule {
    static final String KIND = "db-connect";
    /** One request in twenty opening a connection, and enough of them to be a habit, not a reconnect. */
    static final double PER_REQUEST_WARN = 0.05;
    static final double MIN_CONNECTS = 20;
    /** Half of the requests, or a third of request time in opening connections. */
    static final double PER_REQUEST_CRITICAL = 0.5;
    static final double SHARE_CRITICAL = 0.3;

    @Override public String id() { return "db-connect-per-request"; }
    @Override public String title() { return "Database connections opened per request (no pool)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (the framework probes did not run)");
        Table t = calls.get();
        int top = -1;
        double count = 0, totalMs = 0, share = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!KIND.equals(t.text(i, "kind"))) continue;
            count += t.number(i, "count");
            totalMs += t.number(i, "totalMs");
            if (Double.isFinite(t.number(i, "shareOfRequestTime"))) share += t.number(i, "shareOfRequestTime");
            if (top < 0 || t.number(i, "count") > t.number(top, "count")) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (top < 0) return b.summary("no database connection opened through DriverManager in the run.").build();
        double requests = ev.requestCount();
        double perRequest = requests > 0 ? count / requests : Double.NaN;
        Numbers n = new Numbers();
        String ref = "tables/calls#" + top;
        String caller = Evidence.text(t, top, "caller");
        String target = t.text(top, "target");
        String what = n.tag(Fmt.num(count), ref) + " database connection(s) opened through DriverManager ("
                + SlowCallsRule.quote(target) + ")" + (Double.isFinite(perRequest) ? ", " + n.tag(Fmt.num(perRequest), ref) + " per request" : "")
                + ", " + n.tag(Fmt.ms(totalMs / count), ref) + " each" + (share > 0 ? ", " + n.tag(Fmt.pct(share), ref) + " of request time" : "")
                + (caller.isEmpty() ? "" : ", by " + caller);
        if (!(perRequest >= PER_REQUEST_WARN) || count < MIN_CONNECTS) {
            return b.summary(what + ": too few to be the service's habit.").numbers(n.refs()).build();
        }
        Severity sev = perRequest >= PER_REQUEST_CRITICAL || share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN;
        return b.severity(sev).score(Math.max(Math.min(1, perRequest), share)).evidence(ref)
                .culprit(caller.isEmpty() ? target : caller)
                .summary(what + ": no pool stands between the code and the database.")
                .numbers(n.refs())
                .explanation("Opening a connection is a TCP connect, authentication and the server's session start-up (on"
                        + " PostgreSQL a new backend process, whose first queries run on cold caches): milliseconds of the"
                        + " request's time and server CPU per request, where a pool lends an open connection in microseconds."
                        + " Under load the database spends its cores starting sessions, and a burst can exhaust its"
                        + " max_connections.")
                .fix("Borrow connections from a pool: HikariCP (Spring Boot's default DataSource) instead of"
                        + " DriverManagerDataSource or SimpleDriverDataSource, which open a physical connection on every"
                        + " getConnection(), and a DataSource instead of DriverManager.getConnection in the code; size the pool"
                        + " for the requests in flight that need the database.")
                .confirm(ev.confirm("calls"))
                .explains("slow-calls").explains("request-waits").explains("tail-latency").explains("cpu-saturation")
                .build();
    }
}
