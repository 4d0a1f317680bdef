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
 * Database and Redis connections opened on the request path: no pool between the code and the
 * server (Spring's {@code DriverManagerDataSource} configured by hand, legacy
 * {@code DriverManager.getConnection}; a {@code new Jedis(...)} per call; Spring Data Redis with
 * Lettuce's connection sharing turned off and no pool), so every request pays a TCP connect, the
 * handshake (authentication, the server's session start-up: a new backend process on PostgreSQL,
 * HELLO and CLIENT SETINFO on Redis) and the close. Read from the {@code calls} table's
 * {@code db-connect} rows (the agent records them at {@code DriverManager}; a pool opens its
 * connections through the driver and records none) and {@code redis-connect} rows (Lettuce's and
 * Jedis's connects). Without those rows (an older agent) a Redis client's connection set-up in the
 * CPU profile, beside Redis commands made on every request, says the same. A service outside the
 * lab whose report endpoint opened a JDBC connection per request served 40 requests a second at
 * 200 ms and read "no root cause found"; a blind Spring Boot service (session 46) opened a Lettuce
 * connection per template operation, 25 % of its CPU in their set-up and close, and read the same.
 */
public final class DbConnectRule implements Rule {
    static final String KIND = "db-connect";
    static final String REDIS_KIND = "redis-connect";
    /** One request in twenty opening a connection, and enough of them to be a habit, not a reconnect. */
    static final double PER_REQUEST_WARN = 0.05;
    static final double MIN_CONNECTS = 20;
    /** Half of the requests, or a third of request time in opening connections. */
    static final double PER_REQUEST_CRITICAL = 0.5;
    static final double SHARE_CRITICAL = 0.3;
    /** Without connect rows: the CPU share in a Redis client's connection set-up that is a connection per call. */
    static final double SETUP_SHARE_WARN = 0.08;
    static final double SETUP_SHARE_CRITICAL = 0.2;
    /** A Redis client's connection set-up and close, on the caller's thread and on the client's event loop. */
    static final String[] REDIS_SETUP = {
        "io.lettuce.core.RedisClient.connect", "io.lettuce.core.AbstractRedisClient.initializeChannelAsync",
        "io.lettuce.core.RedisHandshake", "io.lettuce.core.ConnectionBuilder", "io.lettuce.core.RedisChannelHandler.close",
        "redis.clients.jedis.DefaultJedisSocketFactory.createSocket", "redis.clients.jedis.Connection.disconnect",
        "io.netty.bootstrap.Bootstrap.connect", "io.netty.channel.AbstractChannel$AbstractUnsafe.close",
        "io.netty.channel.AbstractChannel$AbstractUnsafe.register"
    };

    @Override public String id() { return "db-connect-per-request"; }
    @Override public String title() { return "Database or Redis connections opened per request (no pool)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (the framework probes did not run)");
        Table t = calls.get();
        Connects db = Connects.of(t, KIND), redis = Connects.of(t, REDIS_KIND);
        Connects c = redis.count > db.count ? redis : db;
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (c.top < 0) {
            return redisSetUp(ev, t).orElseGet(() -> b.summary("no database connection opened through DriverManager"
                    + (Connects.of(t, "redis").top() >= 0 ? ", and no Redis connection set-up on the request path" : "") + " in the run.").build());
        }
        boolean isRedis = c == redis;
        double requests = ev.requestCount();
        double perRequest = requests > 0 ? c.count / requests : Double.NaN;
        Numbers n = new Numbers();
        String ref = "tables/calls#" + c.top;
        String caller = Evidence.text(t, c.top, "caller");
        String target = t.text(c.top, "target");
        // A Lettuce connect is timed to its initiation only: its time is no measure of the connection's cost.
        boolean timed = !isRedis || target.endsWith("(Jedis)");
        double setUp = isRedis ? setUpShare(ev) : Double.NaN;
        String what = n.tag(Fmt.num(c.count), ref) + (isRedis ? " Redis connection(s) opened (" : " database connection(s) opened through DriverManager (")
                + SlowCallsRule.quote(target) + ")" + (Double.isFinite(perRequest) ? ", " + n.tag(Fmt.num(perRequest), ref) + " per request" : "")
                + (timed ? ", " + n.tag(Fmt.ms(c.totalMs / c.count), ref) + " each" : "")
                + (timed && c.share > 0 ? ", " + n.tag(Fmt.pct(c.share), ref) + " of request time" : "")
                + (caller.isEmpty() ? "" : ", by " + caller)
                + (setUp >= SETUP_SHARE_WARN ? ", " + n.tag(Fmt.pct(setUp), ev.cpuRef()) + " of CPU samples in their set-up and close" : "");
        if (!(perRequest >= PER_REQUEST_WARN) || c.count < MIN_CONNECTS) {
            return b.summary(what + ": too few to be the service's habit.").numbers(n.refs()).build();
        }
        Severity sev = perRequest >= PER_REQUEST_CRITICAL || c.share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN;
        b.severity(sev).score(Math.max(Math.min(1, perRequest), c.share)).evidence(ref)
                .culprit(caller.isEmpty() ? target : caller)
                .summary(what + (isRedis ? ": the client connects for its commands instead of sharing a connection or borrowing one from a pool."
                        : ": no pool stands between the code and the database."))
                .numbers(n.refs())
                .confirm(ev.confirm("calls"));
        return text(b, isRedis).build();
    }

    /** The connects of one kind in the calls table: their total, the top row, their time. */
    private record Connects(int top, double count, double totalMs, double share) {
        static Connects of(Table t, String kind) {
            int top = -1;
            double count = 0, totalMs = 0, share = 0;
            for (int i = 0; i < t.rows().size(); i++) {
                if (!kind.equals(t.text(i, "kind"))) continue;
                count += t.number(i, "count");
                totalMs += t.number(i, "totalMs");
                if (Double.isFinite(t.number(i, "shareOfRequestTime"))) share += t.number(i, "shareOfRequestTime");
                if (top < 0 || t.number(i, "count") > t.number(top, "count")) top = i;
            }
            return new Connects(top, count, totalMs, share);
        }
    }

    /** Share of CPU samples in a Redis client's connection set-up and close; NaN without a profile. */
    static double setUpShare(Evidence ev) {
        CpuProfile p = ev.cpuProfileIfAny().orElse(null);
        if (p == null || p.samples() == 0) return Double.NaN;
        return (double) p.only(st -> Frames.anyStartsWith(st, REDIS_SETUP)).samples() / p.samples();
    }

    /**
     * Without connect rows: Redis commands on every request, and the CPU profile in a Redis client's
     * connection set-up. The culprit is the application frame that makes the most frequent command.
     */
    private Optional<Finding> redisSetUp(Evidence ev, Table t) {
        double share = setUpShare(ev);
        if (!(share >= SETUP_SHARE_WARN)) return Optional.empty();
        int top = -1;
        double perRequest = 0;
        java.util.List<String> commands = new java.util.ArrayList<>();
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"redis".equals(t.text(i, "kind")) || !Double.isFinite(t.number(i, "perRequest"))) continue;
            perRequest += t.number(i, "perRequest");
            if (commands.size() < 3) commands.add(t.text(i, "target"));
            if (top < 0 || t.number(i, "count") > t.number(top, "count")) top = i;
        }
        if (top < 0 || !(perRequest >= PER_REQUEST_CRITICAL)) return Optional.empty();
        Numbers n = new Numbers();
        String ref = "tables/calls#" + top;
        String caller = Evidence.text(t, top, "caller");
        Severity sev = share >= SETUP_SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN;
        Finding.Builder b = finding(sev).score(Math.min(1, share / SETUP_SHARE_CRITICAL)).evidence(ev.cpuRef()).evidence(ref)
                .culprit(caller.isEmpty() ? t.text(top, "target") : caller)
                .summary(n.tag(Fmt.pct(share), ev.cpuRef()) + " of CPU samples open and close Redis connections (the client's"
                        + " connect, handshake and close) while the service makes " + n.tag(Fmt.num(perRequest), "tables/calls")
                        + " Redis command" + (perRequest >= 1.5 ? "s" : "") + " a request (" + String.join(", ", commands) + ")" + (caller.isEmpty() ? "" : ", the most at " + caller)
                        + ": the client connects for its commands instead of sharing a connection or borrowing one from a pool.")
                .numbers(n.refs())
                .confirm(ev.confirm("calls"));
        return Optional.of(text(b, true).build());
    }

    /** The explanation and fix for the kind of server, and the symptoms a connection per request explains. */
    private static Finding.Builder text(Finding.Builder b, boolean redis) {
        return (redis ? redisText(b) : databaseText(b))
                .explains("slow-calls").explains("request-waits").explains("tail-latency").explains("cpu-saturation");
    }

    private static Finding.Builder databaseText(Finding.Builder b) {
        return b.explanation("Opening a connection is a TCP connect, authentication and the server's session start-up (on"
                        + " PostgreSQL a new backend process, whose first queries run on cold caches): milliseconds of the"
                        + " request's time and server CPU per request, where a pool lends an open connection in microseconds."
                        + " Under load the database spends its cores starting sessions, and a burst can exhaust its"
                        + " max_connections.")
                .fix("Borrow connections from a pool: HikariCP (Spring Boot's default DataSource) instead of"
                        + " DriverManagerDataSource or SimpleDriverDataSource, which open a physical connection on every"
                        + " getConnection(), and a DataSource instead of DriverManager.getConnection in the code; size the pool"
                        + " for the requests in flight that need the database.");
    }

    private static Finding.Builder redisText(Finding.Builder b) {
        return b.explanation("A new Redis connection is a TCP connect, the client's handshake (HELLO, CLIENT SETINFO, AUTH,"
                        + " SELECT), a channel with its buffers on the client's event loop, and a close that leaves a socket in"
                        + " TIME_WAIT: many times the work of the command it carries, on the service's CPUs and on Redis's single"
                        + " thread. A Lettuce connection is thread-safe and multiplexes every command of the application; a Jedis"
                        + " connection serves one caller at a time, from a pool.")
                .fix("Share one connection or pool them. Spring Data Redis on Lettuce: leave LettuceConnectionFactory's"
                        + " shareNativeConnection at true (its default), or configure a pool (LettucePoolingClientConfiguration"
                        + " with commons-pool2) if you need dedicated connections; Lettuce alone: one RedisClient and one connection"
                        + " for the application; Jedis: a JedisPool or JedisPooled instead of a new Jedis per call.");
    }
}
