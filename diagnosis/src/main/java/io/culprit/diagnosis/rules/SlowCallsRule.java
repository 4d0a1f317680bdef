package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.diagnosis.Stats;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Slow dependency calls (SQL, Redis, HTTP) against per-kind thresholds, weighed by their share of
 * request time. Without a calls table, the pool's usage time still answers "did the database get
 * slower?": flat usage while latency grew rules the database out (CASES.md #2).
 */
public final class SlowCallsRule implements Rule {
    /** Alert thresholds from CASES.md #4, common APM defaults: SQL 100 ms, Redis 10 ms, remote 200 ms. */
    static final double SQL_SLOW_MS = 100;
    static final double REDIS_SLOW_MS = 10;
    static final double HTTP_SLOW_MS = 200;
    /** A resolver round trip on a LAN takes about a millisecond; the probes see only lookups the JVM's cache missed. */
    static final double DNS_SLOW_MS = 20;
    /** A dependency holding a fifth of request time is the first place to look. */
    static final double SHARE_WARN = 0.2;
    /** Half of request time: the service is mostly waiting on it. */
    static final double SHARE_CRITICAL = 0.5;
    /**
     * Calls under their threshold that still hold this much of request time: the requests do little
     * but wait on that dependency, so its latency is theirs.
     */
    static final double SHARE_DOMINANT = 0.8;
    /** Usage time 1.5× longer late in the run than early means the dependency slowed. */
    static final double USAGE_GROWTH = 1.5;

    @Override public String id() { return "slow-calls"; }
    @Override public String title() { return "Slow dependency calls (SQL, Redis, HTTP)"; }

    static double threshold(String kind) {
        switch (kind == null ? "" : kind.toLowerCase(Locale.ROOT)) {
            case "sql": return SQL_SLOW_MS;
            case "redis": return REDIS_SLOW_MS;
            case "dns": return DNS_SLOW_MS;
            default: return HTTP_SLOW_MS;
        }
    }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return fromPoolUsage(ev);
        Table t = calls.get();
        int top = -1;
        double slowShare = 0;
        int slowRows = 0, background = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!(t.number(i, "p99Ms") >= threshold(t.text(i, "kind")))) continue;
            // A scheduled task's call is no request's wait: named apart, never the requests' slow call.
            if (background(t, i)) {
                if (background < 0 || t.number(i, "totalMs") > t.number(background, "totalMs")) background = i;
                continue;
            }
            slowRows++;
            double share = t.number(i, "shareOfRequestTime");
            if (Double.isFinite(share)) slowShare += share;
            if (top < 0 || t.number(i, "shareOfRequestTime") > t.number(top, "shareOfRequestTime")) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        Numbers n = new Numbers();
        if (top < 0) {
            int dominant = dominant(t);
            if (dominant < 0) dominant = dominantWithItsQueue(ev, t);
            if (dominant < 0) dominant = largeReplies(ev, t);
            if (dominant >= 0) return dominantCall(ev, t, dominant);
            return b.summary("no dependency call" + (background < 0 ? "" : " of a request") + " over its threshold (SQL " + Fmt.ms(SQL_SLOW_MS) + ", Redis "
                    + Fmt.ms(REDIS_SLOW_MS) + ", HTTP " + Fmt.ms(HTTP_SLOW_MS) + " at P99) across "
                    + n.tag(String.valueOf(t.rows().size()), "tables/calls") + " call targets"
                    + (background < 0 ? "" : "; a scheduled task's " + t.text(background, "kind") + " "
                    + quote(t.text(background, "target")) + " is over it outside any request (P99 "
                    + n.tag(Fmt.ms(t.number(background, "p99Ms")), "tables/calls#" + background) + calledFrom(t, background) + ")")
                    + ".").numbers(n.refs()).build();
        }
        double share = t.number(top, "shareOfRequestTime");
        Severity sev = slowShare >= SHARE_CRITICAL ? Severity.CRITICAL : slowShare >= SHARE_WARN ? Severity.WARN : Severity.INFO;
        String kind = t.text(top, "kind");
        String target = t.text(top, "target");
        Reply reply = Reply.of(ev, t, top, n);
        String herd = Stampede.clause(ev, t, top, n);
        List<String> joins = "sql".equalsIgnoreCase(kind) ? CallShape.collectionJoins(target) : null;
        String inProcess = inProcess(ev, t, top, n);
        if (!inProcess.isEmpty()) b.explains(CpuSaturationRule.ID);
        // A Redis command whose cost is its own shape (KEYS walks the keyspace, HGETALL the whole hash) makes
        // the large reply too: its fix comes first (a blind service's KEYS per request read "keep values small").
        String redisShape = "redis".equalsIgnoreCase(kind) ? CallShape.fix(ev, kind, target) : null;
        return b.severity(sev).score(slowShare).evidence("tables/calls#" + top).culprit(culprit(t, top))
                .summary(n.tag(String.valueOf(slowRows), "tables/calls") + " call target(s) over threshold take "
                        + n.tag(Fmt.pct(slowShare), "tables/calls") + " of request time; worst: "
                        + kind + " " + quote(target) + " P99 " + n.tag(Fmt.ms(t.number(top, "p99Ms")), "tables/calls#" + top) + " (threshold "
                        + Fmt.ms(threshold(kind)) + "), " + n.tag(Fmt.num(t.number(top, "count")), "tables/calls#" + top) + " calls, "
                        + n.tag(Fmt.pct(share), "tables/calls#" + top) + " of request time" + calledFrom(t, top) + collectionJoins(joins) + reply.clause() + herd + inProcess + ".")
                .numbers(n.refs())
                .explains("pool-starvation").explains("pool-size").explains("tail-latency").explains("request-errors")
                .explains("thread-oversubscription")
                .explanation(inProcess.isEmpty() ? "Request threads wait on this dependency; throughput is capped at threads ÷ call time."
                        + " If the process is CPU-saturated, call times include client-side CPU wait: fix that first."
                        : "The embedded database executes the statement on the request threads' own CPU: its time is the"
                        + " work that keeps the cores busy, and throughput is capped at cores ÷ its CPU time per call.")
                .fix(!herd.isEmpty() ? Stampede.FIX : joins != null ? CallShape.COLLECTION_JOINS_FIX : redisShape != null ? redisShape
                        : reply.fix() != null ? reply.fix()
                        : or(CallShape.numberOnText(target, Evidence.text(t, top, "binds"), ev.database()), CallShape.fix(ev, kind, target),
                        "Make the call cheaper (index, smaller result, batching, caching) or take it off"
                        + " the request path; check the dependency's own timing to split network, server and client time."))
                .confirm(withDatabase(ev, ev.confirm(traceCommand(t, top, threshold(kind))), kind, target))
                .explains(ObjectPoolRule.busyWithOwnCalls(ev, kind) ? "object-pool" : "pool-starvation")
                .build();
    }

    /**
     * What the client's side says of a call, when it says something: replies too large to decode
     * cheaply, else a connection opened per call; the clause for the summary ("" when neither) and
     * the fix it calls for (null then).
     */
    private record Reply(String clause, String fix) {
        static Reply of(Evidence ev, Table t, int row, Numbers n) {
            String kind = t.text(row, "kind");
            String large = LargeReplies.clause(ev, kind, t.number(row, "count"), rowsRead(t, row), n);
            if (!large.isEmpty() && LargeReplies.orderedUnbounded(kind, t.text(row, "target"))) {
                return new Reply(large + LargeReplies.ORDERED_CLAUSE, LargeReplies.ORDERED_FIX);
            }
            if (!large.isEmpty()) return new Reply(large, LargeReplies.fix(kind));
            String connects = ConnectPerCall.clause(ev, t.text(row, "caller"), n);
            return new Reply(connects, connects.isEmpty() ? null : ConnectPerCall.fix(kind));
        }
    }

    /** The call target with the largest share of request time if that share is dominant, else -1. */
    private static int dominant(Table t) {
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            double share = t.number(i, "shareOfRequestTime");
            if (share >= SHARE_DOMINANT && (top < 0 || share > t.number(top, "shareOfRequestTime"))) top = i;
        }
        return top;
    }

    /**
     * The one SQL statement that holds most of the requests' database time, when its share and the
     * requests' waits for a connection (which that statement holds most) reach {@link #SHARE_DOMINANT}
     * together: the queue is its time too. A service outside the lab (session 37) that bypassed its
     * @Cacheable through a self-call ran a 33 ms aggregate on every request: 64 % of request time in
     * the statement and 13 % waiting for a connection, read as pool starvation with no cause. -1 otherwise.
     */
    private static int dominantWithItsQueue(Evidence ev, Table t) {
        double wait = PoolStarvationRule.waitShare(ev);
        if (!(wait > 0)) return -1;
        int top = -1;
        double sql = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"sql".equalsIgnoreCase(t.text(i, "kind"))) continue;
            double share = t.number(i, "shareOfRequestTime");
            if (!Double.isFinite(share)) continue;
            sql += share;
            if (top < 0 || share > t.number(top, "shareOfRequestTime")) top = i;
        }
        if (top < 0) return -1;
        double share = t.number(top, "shareOfRequestTime");
        return share >= SHARE_CRITICAL && share >= 0.75 * sql && share + wait >= SHARE_DOMINANT_WITH_QUEUE ? top : -1;
    }

    /**
     * A call that holds this share of request time is the requests' main wait when its replies are
     * large ({@link LargeReplies}): a service outside the lab listed 40 documents per request and
     * loaded each one's 40 KB body with them (a lazy basic attribute Hibernate ignores without
     * bytecode enhancement), 40 % of request time in the statement and 97 % of all allocation
     * decoding it, and culprit found no root cause (241 req/s against 1,335 with a projection).
     */
    static final double SHARE_LARGE_REPLIES = 0.25;

    /** The request call with the largest share of request time, from {@link #SHARE_LARGE_REPLIES}, whose replies are large; -1 if none. */
    private static int largeReplies(Evidence ev, Table t) {
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            double share = t.number(i, "shareOfRequestTime");
            if (!(share >= SHARE_LARGE_REPLIES) || background(t, i)) continue;
            if (top >= 0 && share <= t.number(top, "shareOfRequestTime")) continue;
            if (!LargeReplies.clause(ev, t.text(i, "kind"), t.number(i, "count"), rowsRead(t, i), new Numbers()).isEmpty()) top = i;
        }
        return top;
    }

    /** The rows a call's results gave in all, NaN when they were not counted. */
    private static double rowsRead(Table t, int row) {
        return t.number(row, "resultSets") > 0 ? t.number(row, "rows") : Double.NaN;
    }

    /** A little under {@link #SHARE_DOMINANT}: the connection waits are counted from the pool's own series, not the call's. */
    static final double SHARE_DOMINANT_WITH_QUEUE = 0.75;

    /**
     * No call is slow by its threshold, yet one holds most of request time: the commonest reason a
     * service is slow, which a threshold alone would answer with "no problem found".
     */
    private Finding dominantCall(Evidence ev, Table t, int row) {
        Numbers n = new Numbers();
        String kind = t.text(row, "kind");
        String target = t.text(row, "target");
        double share = t.number(row, "shareOfRequestTime");
        Reply reply = Reply.of(ev, t, row, n);
        List<String> joins = "sql".equalsIgnoreCase(kind) ? CallShape.collectionJoins(target) : null;
        String inProcess = inProcess(ev, t, row, n);
        Finding.Builder b = finding(Severity.WARN);
        if (!inProcess.isEmpty()) b.explains(CpuSaturationRule.ID);
        return b.score(share * 0.5).evidence("tables/calls#" + row).culprit(culprit(t, row))
                .summary("requests spend " + n.tag(Fmt.pct(share), "tables/calls#" + row) + " of their time in " + kind + " "
                        + quote(target) + " (P99 " + n.tag(Fmt.ms(t.number(row, "p99Ms")), "tables/calls#" + row) + ", under the "
                        + Fmt.ms(threshold(kind)) + " that makes a call slow; " + n.tag(Fmt.num(t.number(row, "count")), "tables/calls#" + row)
                        + " calls" + calledFrom(t, row) + ")" + queueClause(ev, share, n)
                        + (share >= SHARE_CRITICAL ? ": the service is as fast as this dependency" : "")
                        + collectionJoins(joins) + reply.clause() + inProcess + ".")
                .numbers(n.refs())
                .explains("tail-latency").explains("thread-oversubscription").explains("pool-starvation").explains("pool-size")
                .explanation("Each call passes for normal on its own, but the requests do little else: their latency is"
                        + " this dependency's, and each request thread serves at most one request per call time.")
                .fix(joins != null ? CallShape.COLLECTION_JOINS_FIX : reply.fix() != null ? reply.fix()
                        : or(CallShape.fix(ev, kind, target), "Speed up or cache the dependency's answer, batch calls across requests, make"
                        + " the call concurrently with the request's other work, or take it off the request path. If the dependency"
                        + " cannot answer faster, neither can this service."))
                .confirm(withDatabase(ev, ev.confirm(traceCommand(t, row, t.number(row, "p99Ms") / 2)), kind, target))
                .explains(ObjectPoolRule.busyWithOwnCalls(ev, kind) ? "object-pool" : "pool-starvation")
                .build();
    }

    /**
     * "; the database runs inside this JVM (embedded), and executing the statement takes N % of its CPU
     * samples" when that share makes the statement a CPU consumer of its own ({@link CpuSaturationRule#EXPLAINS_SHARE}),
     * else "": its time is then this JVM's CPU, which the statement explains rather than suffers.
     */
    private static String inProcess(Evidence ev, Table t, int row, Numbers n) {
        if (!"sql".equalsIgnoreCase(t.text(row, "kind"))) return "";
        String caller = Evidence.text(t, row, "caller");
        String method = caller.isEmpty() || caller.startsWith("(") ? null : Frames.stripLine(caller);
        double share = InProcessDatabase.cpuShare(ev, method);
        return share >= CpuSaturationRule.EXPLAINS_SHARE ? "; the database runs inside this JVM (embedded), and executing the statement takes "
                + n.tag(Fmt.pct(share), "profiles/cpu.collapsed") + " of its CPU samples" : "";
    }

    /** "; it joins a, b to its main table's id, each a collection of its rows, …", or "" without such joins. */
    private static String collectionJoins(List<String> joins) {
        return joins == null ? "" : "; it joins " + String.join(" and ", joins) + " to its main table's id, each a collection of"
                + " its rows, so their rows multiply (a cartesian product)";
    }

    /** ", and N % more waiting for a connection" when the dominant share needed the pool's queue to reach it; else "". */
    private static String queueClause(Evidence ev, double share, Numbers n) {
        if (share >= SHARE_DOMINANT) return "";
        double wait = PoolStarvationRule.waitShare(ev);
        return Double.isFinite(wait) && wait >= 0.005 ? ", and " + n.tag(Fmt.pct(wait), "series/pools#dbAcquireMsTotal")
                + " more waiting for a pooled connection, which this statement holds most" : "";
    }

    /**
     * What to name as the culprit: the statement or URL, which say what is slow; for Redis the
     * command alone ("GET") says nothing of where, so the application frame that made the call.
     */
    private static String culprit(Table t, int row) {
        String caller = Evidence.text(t, row, "caller");
        return "redis".equalsIgnoreCase(t.text(row, "kind")) && !caller.isEmpty() && !caller.startsWith("(") ? caller : t.text(row, "target");
    }

    /** The first of the answers that is not null. */
    private static String or(String... answers) {
        for (String a : answers) if (a != null) return a;
        return null;
    }

    private static String withDatabase(Evidence ev, String confirm, String kind, String target) {
        String db = CallShape.databaseConfirm(kind, target, ev.database());
        return db == null ? confirm : confirm + "; " + db;
    }

    /**
     * What to trace to see the call's cost: for SQL the JDBC interface (which stands for the
     * driver's and the pool's statements); for the others the application method that made the
     * call, since the JDK's HttpClient is JDK code culprit does not weave by default.
     */
    /**
     * The command that shows the call live: a trace of its caller or client method over {@code costMs};
     * for a reactive client's calls, whose methods return before the call runs, the live calls table.
     */
    private static String traceCommand(Table t, int row, double costMs) {
        if (!Evidence.text(t, row, "reactiveClient").isEmpty()) return "calls";
        return "trace " + traceTarget(t, row) + " '#cost > " + (long) costMs + "'";
    }

    private static String traceTarget(Table t, int row) {
        String kind = t.text(row, "kind");
        String caller = Frames.classAndMethod(Evidence.text(t, row, "caller"));
        return "sql".equalsIgnoreCase(kind) || caller == null ? traceHint(kind) : caller;
    }

    private static String traceHint(String kind) {
        switch (kind == null ? "" : kind.toLowerCase(Locale.ROOT)) {
            case "sql": return "java.sql.PreparedStatement execute*";
            case "redis": return "*RedisTemplate* *";
            default: return "java.net.http.HttpClient send*";
        }
    }

    /** A {@code calls} row the agent marked {@code background}: first made by a scheduled task, outside any request. */
    static boolean background(Table calls, int row) {
        return Boolean.parseBoolean(calls.text(row, "background"));
    }

    /** "; called from a.B.m:1 ← c.D.n:2" when the agent placed the call (calls.callPath / caller), else "". */
    static String calledFrom(Table t, int row) {
        String path = Evidence.text(t, row, "callPath");
        String where = path.isEmpty() ? Evidence.text(t, row, "caller") : path;
        return where.isEmpty() || where.startsWith("(") ? "" : "; called from " + where;
    }

    /**
     * The costliest SQL in {@code calls} whose call path runs through {@code method} (no line):
     * the statement a method's own cost is about. Null when none.
     */
    static String costliestSql(Evidence ev, String method) {
        int row = costliestSqlRow(ev, method);
        return row < 0 ? null : ev.rows("calls").orElseThrow().text(row, "target");
    }

    /** The {@code calls} row of that statement, or -1. */
    static int costliestSqlRow(Evidence ev, String method) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return -1;
        Table t = calls.get();
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"sql".equalsIgnoreCase(t.text(i, "kind"))) continue;
            if (onPath(t, i, method) && (best < 0 || t.number(i, "totalMs") > t.number(best, "totalMs"))) best = i;
        }
        return best;
    }

    /** Whether {@code method} (no line) is among row {@code i}'s frames ({@link Evidence#callFrames}). */
    static boolean onPath(Table t, int i, String method) {
        for (String f : Evidence.callFrames(t, i)) if (Frames.stripLine(f.trim()).equals(method)) return true;
        return false;
    }

    static String quote(String s) {
        if (s == null) return "?";
        return "\"" + (s.length() > 60 ? s.substring(0, 57) + "..." : s) + "\"";
    }

    private Finding fromPoolUsage(Evidence ev) {
        String col = ev.has("pools", "dbUsageMsMean") ? "dbUsageMsMean" : "dbUsageMsMax";
        Optional<ColumnStats> usage = ev.stats("pools", col);
        if (usage.isEmpty()) return notAssessed("no table calls and no pool usage time (pools#dbUsageMs*)");
        double growth = Stats.ratio(usage.get().lastThird(), usage.get().firstThird());
        Numbers n = new Numbers();
        String p99 = ev.stats("requests", "p99Ms").map(s -> " while P99 went " + n.tag(Fmt.ms(s.firstThird()), "series/requests#p99Ms")
                + " → " + n.tag(Fmt.ms(s.lastThird()), "series/requests#p99Ms")).orElse("");
        String what = "connection usage time (" + (col.endsWith("Mean") ? "mean" : "max") + ") "
                + n.tag(Fmt.ms(usage.get().firstThird()), "series/pools#" + col) + " → "
                + n.tag(Fmt.ms(usage.get().lastThird()), "series/pools#" + col) + p99;
        Finding.Builder b = finding(Severity.OK).evidence("series/pools#" + col);
        if (!(growth >= USAGE_GROWTH)) {
            return b.summary(what + ": flat, so the database did not get slower.").numbers(n.refs()).build();
        }
        return b.severity(Severity.WARN).score(0.3)
                .summary(what + ": connections are held " + n.tag(Fmt.times(growth), "series/pools#" + col) + " longer.")
                .numbers(n.refs())
                .culprit("database").explains("pool-starvation").explains("pool-size").explains("tail-latency").explains("request-errors")
                .explanation("Connections held longer with the same load means each statement (or the work done while"
                        + " holding the connection) got slower.")
                .fix("Record SQL timings (calls table) to find the statement; check the database's waits and plans.")
                .confirm(ev.confirm("trace java.sql.PreparedStatement execute* '#cost > 100'"))
                .build();
    }
}
