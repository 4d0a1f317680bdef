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
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One dependency call repeated many times within each request: the N+1 query (an ORM's lazy
 * association, a repository called in a loop), a Redis GET per item instead of one MGET, a remote
 * call per element. Every call is fast, so slow-calls' thresholds never fire, but their sum is
 * the request: the cost is the round trips, and it grows with the data. Read from the calls
 * table's calls per request of each target (a statement's shape, parameters aside) and its share
 * of request time; the call site is where the agent first saw the target called.
 */
public final class ChattyCallsRule implements Rule {
    /**
     * Ten of the same statement per request is a loop, not a design: a handful can be a request
     * that needs a few lookups (an aggregator calling five services), so fewer are not counted.
     */
    static final double REPEATED = 10;
    /** A fifth of request time in one repeated call: the first place to look. */
    static final double SHARE_WARN = 0.2;
    /** Half of it: the request is mostly round trips. */
    static final double SHARE_CRITICAL = 0.5;

    @Override public String id() { return "chatty-calls"; }
    @Override public String title() { return "The same dependency call repeated within each request (N+1)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (the framework probes did not run)");
        Table t = calls.get();
        int top = -1;
        double topPerRequest = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double pr = ev.perRequest(t, i);
            if (!(pr >= REPEATED)) continue;
            if (top < 0 || share(t, i) > share(t, top)) top = i;
            topPerRequest = Math.max(topPerRequest, pr);
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        Numbers n = new Numbers();
        if (top < 0) {
            double most = 0;
            for (int i = 0; i < t.rows().size(); i++) most = Math.max(most, finite(ev.perRequest(t, i)));
            return b.summary("no call target repeated " + Fmt.num(REPEATED) + " or more times per request (most: "
                    + n.tag(Fmt.num(most), "tables/calls") + " across " + n.tag(String.valueOf(t.rows().size()), "tables/calls")
                    + " targets).").numbers(n.refs()).build();
        }
        double share = share(t, top);
        double perRequest = ev.perRequest(t, top);
        String kind = t.text(top, "kind");
        String target = t.text(top, "target");
        String ref = "tables/calls#" + top;
        String caller = Evidence.text(t, top, "caller");
        String path = Evidence.text(t, top, "callPath");
        List<String> frames = Evidence.callFrames(t, top);
        int helper = sharedHelper(t, top, frames);
        String through = "";
        if (helper > 0) {
            // The helper is every statement's call site: this statement's own starts past it.
            through = ", through " + Frames.stripLine(frames.get(0)) + ", which the service's other statements also run through";
            caller = frames.get(helper);
            path = String.join(" ← ", frames.subList(helper, Math.min(frames.size(), helper + 2)));
        }
        boolean located = !caller.isEmpty() && !caller.startsWith("(");
        String[] lazy = located ? lazyLoad(path.isEmpty() ? caller : path) : null;
        if (lazy != null) caller = lazy[2];
        // The calls' own time leaves out what each round trip costs the caller (pool checkout,
        // statement preparation, row mapping): with an embedded database that is most of it. The
        // CPU under the call site's method is the whole loop body, which the fix removes.
        String method = located ? Frames.stripLine(caller) : null;
        double cpu = located ? ev.cpuShare(f -> Frames.stripLine(f).equals(method)) : Double.NaN;
        boolean nested = located && ev.cpuProfileIfAny()
                .map(p -> p.only(st -> Frames.hasMethod(st, method) && Frames.anyStartsWith(st, MYBATIS_NESTED)).samples() > 0).orElse(false);
        OrmRoundTrips orm = lazy == null && !nested ? OrmRoundTrips.of(ev, kind, target) : null;
        double client = reactiveClientCpu(ev, t, top);
        double cost = Math.max(finite(share), Math.max(finite(cpu), finite(client)));
        Severity sev = cost >= SHARE_CRITICAL ? Severity.CRITICAL : cost >= SHARE_WARN ? Severity.WARN : Severity.INFO;
        double count = t.number(top, "count");
        double meanMs = count > 0 ? t.number(top, "totalMs") / count : Double.NaN;
        b.severity(sev).score(cost).evidence(ref).culprit(located ? caller : target)
                .summary(kind + " " + SlowCallsRule.quote(target) + " runs " + n.tag(Fmt.num(perRequest), ref) + " times per request ("
                        + n.tag(Fmt.num(count), ref) + " calls, " + n.tag(each(meanMs), ref) + " each), "
                        + (Double.isFinite(share) ? n.tag(Fmt.pct(share), ref) + " of request time" : "share of request time unknown")
                        + (helper > 0 ? "; called from " + path + through : SlowCallsRule.calledFrom(t, top))
                        + (lazy != null ? "; each is a lazy load of " + lazy[0] + ", a Hibernate proxy that " + lazy[1]
                        + "() initialises, at " + lazy[2] : "")
                        + (nested ? "; each is MyBatis's nested select for one row of a list (a resultMap's association or"
                        + " collection with select=)" : "")
                        + (cpu > 0 ? ", under which " + n.tag(Fmt.pct(cpu), ev.cpuRef()) + " of CPU samples run" : "")
                        + (client >= SHARE_WARN ? "; the " + Evidence.text(t, top, "reactiveClient") + " client's own work for them (encoding,"
                        + " decoding, its pool, each call's callbacks on the event loop) holds " + n.tag(Fmt.pct(client), ev.cpuRef())
                        + " of CPU samples" : "")
                        + (orm != null ? orm.clause : "") + ".")
                .numbers(n.refs())
                .explanation("Each call is quick, so no slow-call threshold fires, but the request makes it once per item:"
                        + " the round trips (pool checkout, network, parse, driver) add up to the request's time and grow"
                        + " with the data. Threads hold their connection across the whole loop.")
                .fix(lazy != null ? "The association to " + lazy[0] + " is LAZY and read for every item: fetch it with the query"
                        + " that loads the list (JOIN FETCH, @EntityGraph), or batch the loads (@BatchSize on the association,"
                        + " hibernate.default_batch_fetch_size), or select only the columns the response needs (a DTO projection)."
                        : nested ? MYBATIS_NESTED_FIX : orm != null ? orm.fix : fix(kind, target) + slowEach(ev, kind, target, meanMs)
                        + resubscribed(ev, kind))
                .confirm(ev.confirm(confirm(located ? (path.isEmpty() ? caller : path) : null)));
        // Each lazy load also builds its entity: the ORM's CPU is this loop's.
        if (lazy != null || orm != null) b.explains("orm-cpu");
        if (sev != Severity.INFO) {
            b.explains("pool-starvation").explains("pool-size").explains("tail-latency").explains("request-errors")
                    .explains("thread-oversubscription").explains("cpu-saturation");
        }
        return b.build();
    }

    /**
     * How many of the row's innermost frames it shares, frame for frame, with another target's
     * call whose frames then part from it: a data-access helper the application runs its
     * statements through (a {@code JdbiRepository.one} around JDBI's Handle, a DAO base class's
     * query method), 0 when there is none or the frame past it is not the application's. Blind
     * round 21's N+1 ran in {@code BacklogService.resolve} through {@code VehicleRepository.findById}
     * into such a helper, which culprit named as the call site of every statement.
     */
    static int sharedHelper(Table t, int row) {
        return sharedHelper(t, row, Evidence.callFrames(t, row));
    }

    private static int sharedHelper(Table t, int row, List<String> mine) {
        int best = 0;
        for (int j = 0; j < t.rows().size(); j++) {
            if (j == row) continue;
            List<String> other = Evidence.callFrames(t, j);
            int k = 0;
            while (k < mine.size() && k < other.size() && mine.get(k).equals(other.get(k))) k++;
            if (k < mine.size() && k < other.size()) best = Math.max(best, k);
        }
        return best > 0 && best < mine.size() && Frames.isApplication(mine.get(best)) ? best : 0;
    }

    /**
     * A reactive client's frames by the name it is recorded under ({@code calls.reactiveClient}): its
     * work for a call runs on the event loop in callbacks, under no frame of the caller's method.
     */
    private static final java.util.Map<String, String[]> CLIENT_FRAMES = java.util.Map.of(
            "vertx-redis-client", new String[] {"io.vertx.redis."},
            "vertx-sql-client", new String[] {"io.vertx.sqlclient.", "io.vertx.pgclient.", "io.vertx.mysqlclient."},
            "lettuce", new String[] {"io.lettuce."},
            "r2dbc-postgresql", new String[] {"io.r2dbc.postgresql."});

    /**
     * The CPU share of a reactive client's own frames charged to this row: the client's share of
     * samples times the row's part of the client's calls. A Vert.x service that read 80 prices one
     * GET at a time spent 16 % of request time in the GETs and 44 % of its CPU in the Redis client
     * doing them. NaN for a blocking client, whose work runs under the caller's method.
     */
    private static double reactiveClientCpu(Evidence ev, Table t, int row) {
        String name = Evidence.text(t, row, "reactiveClient");
        String[] prefixes = CLIENT_FRAMES.get(name);
        if (prefixes == null) return Double.NaN;
        double mine = 0, all = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!name.equals(Evidence.text(t, i, "reactiveClient"))) continue;
            all += finite(t.number(i, "count"));
            if (i == row) mine = finite(t.number(i, "count"));
        }
        if (!(all > 0)) return Double.NaN;
        return ev.cpuShare(f -> Frames.startsWithAny(f, prefixes)) * mine / all;
    }

    /** Where MyBatis runs a resultMap's nested select for a row: eagerly while mapping the list, or lazily at first access. */
    static final String[] MYBATIS_NESTED = {"org.apache.ibatis.executor.resultset.DefaultResultSetHandler.getNestedQueryMappingValue",
        "org.apache.ibatis.executor.resultset.DefaultResultSetHandler.getNestedQueryConstructorValue",
        "org.apache.ibatis.executor.loader.ResultLoaderMap$LoadPair.load"};
    static final String MYBATIS_NESTED_FIX = "The resultMap loads the association with its own select for every row: map it from"
            + " the list's query instead (a join, with a nested resultMap and no select=, or an aggregate joined in), or"
            + " load all the rows' associations in one IN query; fetchType=\"lazy\" only defers the same loop to the first"
            + " access, and MyBatis's local cache helps only when rows share a key.";

    /**
     * A call site inside a Hibernate entity proxy ({@code a.Customer$HibernateProxy.getName}): each
     * call is a lazy load that the code one frame out (the loop) sets off by touching the proxy.
     * {entity, accessor, the frame that touched it}, or null.
     */
    static String[] lazyLoad(String path) {
        String[] frames = path.split(" ← ");
        int at = frames[0].indexOf("$HibernateProxy");
        if (at < 0 || frames.length < 2) return null;
        String method = Frames.stripLine(frames[0]);
        String accessor = method.substring(method.lastIndexOf('.') + 1);
        String entity = frames[0].substring(0, at);
        entity = entity.substring(Math.max(entity.lastIndexOf('.'), entity.lastIndexOf('$')) + 1);
        return new String[] {entity, accessor, frames[1]};
    }

    private static double share(Table t, int row) {
        return t.number(row, "shareOfRequestTime");
    }

    /** A call's mean time: microseconds below a tenth of a millisecond, where "0 ms" would say nothing. */
    private static String each(double ms) {
        return ms < 0.1 ? String.format(Locale.ROOT, "%.0f µs", ms * 1000) : Fmt.ms(ms);
    }

    /** A repeated read this slow on its own is also worth its plan: the loop multiplies it. */
    static final double SLOW_EACH_MS = 2;

    /** " Each call alone takes 6.5 ms: read its plan …" for a repeated SELECT that is slow by itself; else "". */
    private static String slowEach(Evidence ev, String kind, String target, double meanMs) {
        // An id generator's read is slow for its row lock, not its plan.
        boolean generator = target != null && TABLE_ID_GENERATOR.matcher(target).find();
        String plan = meanMs >= SLOW_EACH_MS && !generator ? CallShape.fix(kind, target, ev.database()) : null;
        return plan == null ? "" : " Each call alone takes " + Fmt.ms(meanMs) + ": " + Character.toLowerCase(plan.charAt(0)) + plan.substring(1);
    }

    /** Statements that write: repeated, they are batched rather than joined. */
    private static final java.util.regex.Pattern WRITE = java.util.regex.Pattern.compile("^\\s*(insert|update|delete|merge|upsert)\\b",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    /**
     * Hibernate's table id generator: one row per segment, read FOR UPDATE and bumped for every id
     * block, aliased {@code tbl}. A service outside the lab (session 37) inserting 10 events per request
     * with allocationSize 1 queued every request on that row: 10.2 ms per read, 48 requests/s against
     * 387 with a pooled sequence.
     */
    private static final java.util.regex.Pattern TABLE_ID_GENERATOR = java.util.regex.Pattern.compile(
            "^\\s*select\\s+tbl\\.\\w+\\s+from\\s+\\S+\\s+tbl\\s+where\\s+tbl\\.\\w+\\s*=\\s*\\?\\s+for\\s+update",
            java.util.regex.Pattern.CASE_INSENSITIVE);
    static final String TABLE_ID_GENERATOR_FIX = "These are Hibernate's table id generator (GenerationType.TABLE, or AUTO where"
            + " the database has no sequences): each id block is a SELECT ... FOR UPDATE and an UPDATE of one row, in a"
            + " transaction of its own on a second connection, so every insert of every request queues on that row lock. Use a"
            + " sequence (GenerationType.SEQUENCE with an allocationSize of 50 or more: one round trip per 50 ids) or IDENTITY;"
            + " if the table generator must stay, raise its allocationSize.";

    private static String fix(String kind, String target) {
        if ("sql".equals(kind) && target != null && TABLE_ID_GENERATOR.matcher(target).find()) return TABLE_ID_GENERATOR_FIX;
        if ("sql".equals(kind) && target != null && WRITE.matcher(target).find()) {
            return "Send the writes as one batch: JdbcTemplate.batchUpdate or addBatch/executeBatch (with PostgreSQL's"
                    + " reWriteBatchedInserts=true), saveAll with hibernate.jdbc.batch_size set (IDENTITY ids turn Hibernate's"
                    + " insert batching off: use a sequence), or one multi-row INSERT ... VALUES (...), (...) or COPY.";
        }
        switch (kind == null ? "" : kind) {
            case "sql": return "Fetch the rows in one statement: a join or WHERE id IN (...) for the whole list, the ORM's"
                    + " batch or join fetching (JOIN FETCH, @EntityGraph, @BatchSize), or cache what does not change.";
            case "redis": return target != null && target.trim().toUpperCase(Locale.ROOT).startsWith("SCAN")
                    // A service outside the lab scanned 60,000 keys 100 at a time to find one user's 20 sessions.
                    ? "SCAN walks the whole keyspace, COUNT keys per call, whatever its MATCH pattern finds: finding a few"
                    + " keys this way costs a round trip per COUNT keys of the database. Keep the keys a request needs in a"
                    + " set or hash of their own (SADD when a key is written, SMEMBERS or HGETALL to read), and keep SCAN for"
                    + " maintenance off the request path."
                    : "Fetch the keys in one round trip: MGET / HMGET, or a pipeline.";
            default: return "Call the dependency once for the whole list (a bulk endpoint), in parallel, or cache the answers.";
        }
    }

    /**
     * In a Reactor pipeline the loop may be no loop in the code: a Mono that makes the call runs it
     * again at every subscription, and one referenced per item (inside concatMap or flatMap, or
     * zipped in again) is subscribed per item. A blind WebFlux service (session 41) made its FX
     * call 21 times per quote this way, for a value that one call gave.
     */
    private static String resubscribed(Evidence ev, String kind) {
        if (!"http".equals(kind) && !"redis".equals(kind) && !"sql".equals(kind)) return "";
        if (!(ev.cpuShare(f -> f.startsWith("reactor.core.publisher.")) > 0)) return "";
        return " In a Reactor pipeline, a Mono that makes the call runs it again at every subscription: one used per item"
                + " (inside concatMap or flatMap, or zipped in more than once) must be cached (.cache()) or resolved once and"
                + " its value passed on.";
    }

    /** A trace of the code around the loop (the call site's caller), which counts the calls per invocation. */
    private static String confirm(String path) {
        if (path == null) return "calls";
        String[] frames = path.split(" ← ");
        // The loop's method, one frame out, when it is the application's (not the servlet that called it).
        String target = Frames.classAndMethod(frames.length > 1 && Frames.isApplication(frames[1]) ? frames[1] : frames[0]);
        return target == null ? "calls" : "trace " + target + " -n 3";
    }
}
