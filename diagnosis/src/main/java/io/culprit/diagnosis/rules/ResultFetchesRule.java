package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Map;

/**
 * A result read through a cursor a few rows at a time: every {@code ResultSet.next()} that runs
 * out of rows asks the database for the next batch, a round trip with the connection held. The
 * SQL probe times the statement's execute, which returns with the first batch, so the calls table
 * shows a fast query while the connection stays busy for the whole read. Read from the CPU profile
 * under the driver's fetch (PostgreSQL's {@code QueryExecutorImpl.fetch}, Oracle's
 * {@code T4C*Statement.fetch}, MySQL's cursor {@code fetchMoreRows}). A service outside the lab
 * that read 2,000 rows per request with a fetch size of 10 spent half its CPU samples in fetches
 * and was told its pool of 10 was too small; a fetch size of 2,000 served 4.5 times the requests.
 */
public final class ResultFetchesRule implements Rule {
    static final double SHARE_WARN = 0.1;
    static final double SHARE_CRITICAL = 0.3;

    /** The drivers' frames that fetch the next batch of a cursor's rows from the database. */
    private static final String[] FETCHES = {
        "org.postgresql.core.v3.QueryExecutorImpl.fetch", "oracle.jdbc.driver.T4CPreparedStatement.fetch",
        "oracle.jdbc.driver.T4CStatement.fetch", "com.mysql.cj.protocol.a.result.ResultsetRowsCursor.fetchMoreRows"
    };

    @Override public String id() { return "result-fetches"; }
    @Override public String title() { return "Results read in many small fetches (a small fetch size)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        CpuProfile p = ProfileGate.enough(ev);
        if (p == null) return notAssessed(ProfileGate.missing(ev));
        CpuProfile fetches = p.only(st -> Frames.anyStartsWith(st, FETCHES));
        Finding.Builder b = finding(Severity.OK).evidence("profiles/cpu.collapsed");
        if (fetches.samples() == 0) return b.summary("no JDBC driver fetched a cursor's next rows on the CPU in the profile.").build();
        double share = (double) fetches.samples() / p.samples();
        Map.Entry<String, Long> reader = CpuHotspotRule.top(fetches.sumBy(st -> Frames.applicationAbove(st, ResultFetchesRule::isFetch)));
        String caller = reader == null ? null : reader.getKey();
        Numbers n = new Numbers();
        int sql = caller == null ? -1 : SlowCallsRule.costliestSqlRow(ev, caller);
        Table calls = sql < 0 ? null : ev.rows("calls").orElseThrow();
        String statement = calls == null ? "" : " (sql " + SlowCallsRule.quote(calls.text(sql, "target")) + ", "
                + n.tag(Fmt.ms(calls.number(sql, "totalMs") / calls.number(sql, "count")), "tables/calls#" + sql) + " to execute)";
        String what = "the JDBC driver fetched the next rows of open results on " + n.tag(Fmt.pct(share), "profiles/cpu.collapsed")
                + " of the CPU samples" + (caller == null ? "" : ", reading them at " + caller) + statement;
        if (share < SHARE_WARN) return b.summary(what + ": too small a share to matter.").numbers(n.refs()).build();
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).numbers(n.refs())
                .culprit(caller == null ? "the result's fetch size" : caller)
                .summary(what + ": each fetch is a round trip with the connection held, and the statement's own time does"
                        + " not show them.")
                .explanation("With a fetch size set (and, on PostgreSQL, autocommit off) the driver reads a result through a"
                        + " cursor, that many rows at a time: ResultSet.next() waits for a round trip whenever the rows run"
                        + " out. The statement returns with the first batch, so it looks fast, while the connection is held for"
                        + " every fetch that follows; a small fetch size over a large result makes the read, and the pool, a"
                        + " queue of round trips.")
                .fix("Fetch more rows per round trip: a fetch size of hundreds to thousands (Statement.setFetchSize,"
                        + " JdbcTemplate.setFetchSize or spring.jdbc.template.fetch-size, Hibernate's hibernate.jdbc.fetch_size,"
                        + " Oracle's defaultRowPrefetch, 10 by default), or read fewer rows (aggregate or filter in SQL, LIMIT).")
                .confirm(ev.confirm("profiler start --event wall") + " then the flame graph under "
                        + (caller == null ? "ResultSet.next" : Frames.shortName(caller)))
                .explains("pool-size").explains("pool-starvation").explains("connection-held").explains("slow-calls")
                .explains("cpu-hotspot").explains("cpu-saturation").explains("tail-latency")
                .build();
    }

    private static boolean isFetch(String frame) {
        return Frames.startsWithAny(frame, FETCHES);
    }
}
