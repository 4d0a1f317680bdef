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
import java.util.Optional;

/**
 * The database's catalog read on every request: statements a JDBC driver runs to answer
 * {@code java.sql.DatabaseMetaData} (tables, columns, keys, procedures), which the agent marks in
 * {@code tables/calls} with the library call that asked ({@code catalogVia}). A service is expected
 * to read its schema once; per request, each lookup is a round trip into the system tables and the
 * library's processing of the answer. A claims service outside the lab built a Spring
 * {@code SimpleJdbcInsert} per request, which compiles itself by reading the table's columns: two
 * catalog queries per insert, 19 % of request time and a quarter of the CPU, while every rule read
 * "no root cause" (2 calls per request is not N+1, and each query was fast).
 */
public final class CatalogReadsRule implements Rule {
    static final double SHARE_WARN = 0.10;
    static final double SHARE_CRITICAL = 0.40;
    /** Fewer than this many catalog reads per request are start-up or a rare path, not the requests' own. */
    static final double MIN_PER_REQUEST = 0.2;

    @Override public String id() { return "catalog-reads"; }
    @Override public String title() { return "The database's catalog is read on every request (DatabaseMetaData)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (framework probes off)");
        Table t = calls.get();
        if (!t.columns().contains("catalogVia")) {
            return notAssessed("the calls table does not mark catalog queries (recorded before culprit read them)");
        }
        double share = 0, perRequest = 0;
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (Evidence.text(t, i, "catalogVia").isEmpty() || !Double.isFinite(t.number(i, "perRequest"))) continue;
            perRequest += t.number(i, "perRequest");
            double s = t.number(i, "shareOfRequestTime");
            if (Double.isFinite(s)) share += s;
            if (top < 0 || t.number(i, "totalMs") > t.number(top, "totalMs")) top = i;
        }
        if (top < 0 || perRequest < MIN_PER_REQUEST) {
            return finding(Severity.OK).evidence("tables/calls")
                    .summary(top < 0 ? "no request read the database's catalog (no DatabaseMetaData query in the calls)."
                            : "catalog queries ran " + Fmt.num(perRequest) + " time(s) per request: start-up or a rare path.")
                    .build();
        }
        double cpu = ev.cpuProfileIfAny().map(CatalogReadsRule::cpuShare).orElse(Double.NaN);
        double weight = Math.max(share, Double.isFinite(cpu) ? cpu : 0);
        Severity sev = weight >= SHARE_CRITICAL ? Severity.CRITICAL : weight >= SHARE_WARN ? Severity.WARN : Severity.INFO;
        String via = Evidence.text(t, top, "catalogVia"), caller = Evidence.text(t, top, "caller");
        String row = "tables/calls#" + top;
        Numbers n = new Numbers();
        boolean known = !caller.isEmpty() && !caller.equals("(unknown)");
        String where = known ? " called from " + caller : "";
        boolean insert = via.contains(".SimpleJdbcInsert."), call = via.contains(".SimpleJdbcCall.");
        Finding.Builder f = finding(sev).score(weight).evidence(row).culprit(known ? caller : via)
                .summary("Requests read the database's catalog: " + n.tag(Fmt.num(perRequest), "tables/calls")
                        + " metadata queries per request through " + via + where + ", " + n.tag(Fmt.pct(share), "tables/calls")
                        + " of request time" + (Double.isFinite(cpu) && cpu >= 0.01
                        ? ", and " + n.tag(Fmt.pct(cpu), "profiles/cpu.collapsed") + " of CPU samples in the metadata code" : "")
                        + "; the costliest: " + SlowCallsRule.quote(t.text(top, "target")) + ".")
                .numbers(n.refs())
                .explanation("DatabaseMetaData answers each question (tables, columns, keys, procedures) with queries on the"
                        + " database's system tables, and the library then works through the answer. A schema does not change"
                        + " between requests, so what is read per request is rebuilt state"
                        + (insert ? ": a SimpleJdbcInsert compiles itself on its first insert by reading the table's columns, so a"
                        + " new one per request reads them every time." : call ? ": a SimpleJdbcCall compiles itself on its first"
                        + " call by reading the procedure's parameters, so a new one per request reads them every time."
                        : " that was meant to be built once."))
                .fix(insert ? "Build the SimpleJdbcInsert once (a field set up in the constructor; it is thread-safe once compiled)"
                        + " and reuse it, or name its columns (usingColumns) and skip the lookup (withoutTableColumnMetaDataAccess())."
                        : call ? "Build the SimpleJdbcCall once and reuse it (thread-safe once compiled), or declare its parameters"
                        + " (declareParameters) and skip the lookup (withoutProcedureColumnMetaDataAccess())."
                        : "Read the catalog once, at start-up, and keep what it says; build the object that reads it once"
                        + " instead of per request.")
                .confirm(ev.confirm("trace " + Frames.classAndMethod(known ? caller : via))
                        + " (the metadata queries under it on every call)");
        if (sev == Severity.WARN || sev == Severity.CRITICAL) {
            f.explains("slow-calls").explains("chatty-calls").explains("pool-starvation").explains("pool-size")
                    .explains("cpu-saturation").explains("tail-latency");
        }
        return f.build();
    }

    /**
     * Samples in code that reads or processes the catalog: a driver's {@code DatabaseMetaData} and
     * a library's metadata handling (Spring's {@code TableMetaDataContext}, {@code …MetaDataProvider});
     * not a result set's own {@code ResultSetMetaData}, which every query reads.
     */
    static double cpuShare(CpuProfile p) {
        if (p.samples() == 0) return Double.NaN;
        return (double) p.only(st -> {
            for (String f : st) if (catalogFrame(f)) return true;
            return false;
        }).samples() / p.samples();
    }

    static boolean catalogFrame(String frame) {
        return frame.contains("DatabaseMetaData") || frame.contains("MetaDataContext.") || frame.contains("MetaDataProvider");
    }
}
