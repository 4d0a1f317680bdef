package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.diagnosis.internal.LoadJson;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Locale;
import java.util.Optional;

/**
 * Thousands of rows read per request: {@code findAll()} filtered in a stream, every entity of a
 * parent loaded to keep a few. The statement itself is often fast (the table is cached, the rows
 * come in one round trip), so slow-call thresholds never fire; the cost is the driver decoding the
 * rows, the mapper or ORM building an object per row, and the collector clearing them, per
 * request. Read from the rows the agent counts at {@code ResultSet.next()} ({@code calls.rows},
 * {@code resultSets}), weighed by the CPU and the allocation under the statement's caller. A blind
 * Payara service (session 48) loaded every reservation of a hotel as entities (~20,000) and kept a
 * handful: it was told "gc-pressure, size the heap" (113 MB allocated per request), as no row
 * counts were recorded then.
 */
public final class OverFetchRule implements Rule {
    /** Rows per result below this are a page or a lookup, whatever runs them per request (that is chatty-calls). */
    static final double ROWS_PER_RESULT_MIN = 200;
    static final double ROWS_PER_REQUEST_WARN = 500;
    static final double ROWS_PER_REQUEST_CRITICAL = 1_000;
    /** The reading's share of CPU samples or of request time. */
    static final double COST_WARN = 0.1, COST_CRITICAL = 0.3;
    /** Or its share of sampled allocation: what the collector clears. */
    static final double ALLOC_WARN = 0.3, ALLOC_CRITICAL = 0.5;
    /**
     * Response bytes per row read from which the rows are taken to reach the client: a row sent as
     * JSON or text takes more than this (the lab's n-plus-one fixed twin sends its 500 order lines
     * in ~90 bytes each), while a request that filters thousands of rows down to a few sends a
     * byte or less per row read.
     */
    static final double SENT_BYTES_PER_ROW = 16;

    @Override public String id() { return "over-fetch"; }
    @Override public String title() { return "Far more rows read per request than a request uses"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (the framework probes did not run)");
        Table t = calls.get();
        boolean counted = t.columns().contains("rows") || t.rows().stream().anyMatch(r -> r.get("rows") != null);
        if (!counted) return notAssessed("no rows per statement in table calls (an agent before session 49's)");
        int top = -1;
        double topRows = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double perRequest = rowsPerRequest(ev, t, i);
            if (!(rowsPerResult(t, i) >= ROWS_PER_RESULT_MIN) || !(perRequest > topRows)) continue;
            top = i;
            topRows = perRequest;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (top < 0) return b.summary("no statement returned " + Fmt.num(ROWS_PER_RESULT_MIN) + " rows or more per execution on the requests' path.").build();
        Numbers n = new Numbers();
        String ref = "tables/calls#" + top;
        String caller = Evidence.text(t, top, "caller");
        String method = caller.isEmpty() || caller.startsWith("(") ? null : Frames.stripLine(caller);
        double cpu = cpuShare(ev, method), alloc = allocShare(ev, method), time = finite(t.number(top, "shareOfRequestTime"));
        double cost = Math.max(cpu, time);
        Severity sev = topRows >= ROWS_PER_REQUEST_CRITICAL && (cost >= COST_CRITICAL || alloc >= ALLOC_CRITICAL) ? Severity.CRITICAL
                : topRows >= ROWS_PER_REQUEST_WARN && (cost >= COST_WARN || alloc >= ALLOC_WARN) ? Severity.WARN
                : topRows >= ROWS_PER_REQUEST_WARN ? Severity.INFO : Severity.OK;
        String target = t.text(top, "target");
        String what = "sql " + SlowCallsRule.quote(target) + " returns " + n.tag(Fmt.num(rowsPerResult(t, top)), ref)
                + " rows per execution and runs " + times(n, ev.perRequest(t, top), ref) + " per request: "
                + n.tag(Fmt.num(topRows), ref) + " rows per request (at most " + n.tag(Fmt.num(t.number(top, "rowsMax")), ref)
                + " in one result)" + (method == null ? "" : ", read at " + caller);
        if (sev == Severity.OK) return b.summary(what + ": too few per request to matter.").numbers(n.refs()).build();
        double body = LoadJson.bodyBytesPerResponse(ev.caseFile().dir());
        if (body >= SENT_BYTES_PER_ROW * topRows) {
            // The rows go out with the response: a list the request returns, not rows it filters away.
            return b.severity(Severity.INFO).numbers(n.refs()).summary(what + "; the responses carry them: "
                    + n.tag(Fmt.kb(body), "load.json") + " a response, " + Fmt.num(body / topRows)
                    + " bytes per row read, so the rows read are the rows the client gets.").build();
        }
        String costs = costs(n, cpu, alloc, time, ref);
        String whole = wholeTable(target);
        b.severity(sev).score(Math.max(cost, alloc)).numbers(n.refs())
                .summary(what + (costs.isEmpty() ? "" : "; " + costs) + (whole.isEmpty() ? "" : "; " + whole) + ".");
        if (sev == Severity.INFO) return b.build();
        if (ev.rows("alloc-sites").isPresent()) b.evidence("tables/alloc-sites");
        return b.culprit(method == null ? target : caller)
                .explanation("A request that uses a few rows but asks for thousands pays for every one of them: the database"
                        + " reads and sends them, the driver decodes them, the mapper or ORM builds an object per row (an ORM also"
                        + " tracks each entity it loads), and the collector clears them all, on every request. Filtering in Java"
                        + " after a findAll() is fast on a test database of ten rows and grows with the table in production.")
                .fix("Ask the database for the rows the request uses: put the filter in the WHERE clause (a derived query or"
                        + " @Query with the predicate, jOOQ's where(), a JPA criteria), aggregate in SQL (COUNT, SUM, GROUP BY)"
                        + " instead of in a stream, page with LIMIT or a keyset, select only the columns needed (a projection or"
                        + " DTO instead of entities), and index the filtered columns.")
                .confirm(ev.confirm("calls") + " (ROWS/EXEC of the statement)"
                        + (Frames.classAndMethod(caller) == null ? "" : "; " + ev.confirm("trace " + Frames.classAndMethod(caller))))
                .explains("gc-pressure").explains("allocation-stall").explains("slow-calls").explains("orm-cpu")
                .explains("cpu-hotspot").explains("cpu-saturation").explains("tail-latency").explains("pool-starvation")
                .explains("pool-size").explains("result-fetches")
                .build();
    }

    /** "once" for a statement run about once per request, else "N times" (the number tagged). */
    private static String times(Numbers n, double perRequest, String ref) {
        return Math.abs(perRequest - 1) < 0.05 ? "once" : n.tag(Fmt.num(perRequest), ref) + " times";
    }

    /** The statement's mean rows per result read; NaN for rows without counted results. */
    static double rowsPerResult(Table t, int row) {
        double results = t.number(row, "resultSets");
        return "sql".equals(t.text(row, "kind")) && results > 0 ? t.number(row, "rows") / results : Double.NaN;
    }

    /** Rows per request: rows per result times executions per request; NaN off the requests' path. */
    static double rowsPerRequest(Evidence ev, Table t, int row) {
        if (SlowCallsRule.background(t, row)) return Double.NaN;
        return rowsPerResult(t, row) * ev.perRequest(t, row);
    }

    /** Share of CPU samples under the statement's caller: the read, the mapping, what the caller does with them. */
    private static double cpuShare(Evidence ev, String method) {
        if (method == null) return 0;
        CpuProfile p = ProfileGate.enough(ev);
        return p == null || p.samples() == 0 ? 0 : p.share(f -> Frames.stripLine(f).equals(method));
    }

    /** Share of sampled allocation under the statement's caller. */
    private static double allocShare(Evidence ev, String method) {
        Table sites = ev.rows("alloc-sites").orElse(null);
        if (method == null || sites == null) return 0;
        double share = 0;
        for (int i = 0; i < sites.rows().size(); i++) {
            if (Evidence.stack(sites, i, "stack").stream().anyMatch(f -> Frames.stripLine(f).equals(method))) {
                share += finite(sites.number(i, "share"));
            }
        }
        return Math.min(1, share);
    }

    private static String costs(Numbers n, double cpu, double alloc, double time, String ref) {
        StringBuilder s = new StringBuilder();
        if (cpu >= COST_WARN) s.append(n.tag(Fmt.pct(cpu), "profiles/cpu.collapsed")).append(" of the CPU samples");
        if (alloc >= ALLOC_WARN) {
            s.append(s.length() == 0 ? "" : " and ").append(n.tag(Fmt.pct(alloc), "tables/alloc-sites")).append(" of sampled allocation");
        }
        if (s.length() > 0) s.insert(0, "reading them takes ");
        if (time >= COST_WARN) s.append(s.length() == 0 ? "" : ", ").append("the statement ").append(n.tag(Fmt.pct(time), ref))
                .append(" of request time");
        return s.toString();
    }

    /** "the statement has no WHERE clause: the whole table, every time" for a SELECT that filters nothing; else "". */
    static String wholeTable(String sql) {
        String s = sql.toLowerCase(Locale.ROOT);
        if (!s.startsWith("select") || s.contains(" where ") || s.contains(" limit ") || s.contains(" fetch first ")) return "";
        return "the statement has no WHERE clause: the whole table, every time";
    }
}
