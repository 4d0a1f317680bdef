package io.culprit.agent.probe;

import io.culprit.model.EventLoops;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Dependency calls a request waits on. SQL is timed at the drivers' and pools' statements (see
 * {@link #JDBC_STATEMENT}), and reactive SQL at R2DBC PostgreSQL's conversations ({@link R2dbcPostgresHooks}) and the Vert.x SQL client's commands ({@link VertxSqlHooks}); a prepared statement's text is remembered when a connection prepares
 * it (statements do not all keep it), in a small per-thread memory: see {@link Prepared}.
 * Outbound HTTP is timed at Spring's {@code AbstractClientHttpRequest.execute()} (RestTemplate
 * and RestClient), at WebClient's exchange ({@link WebClientHooks}), the JDK's HttpClient
 * ({@link JdkHttpHooks}) and HttpURLConnection ({@link UrlConnectionHooks}), Apache HttpClient 5
 * ({@link ApacheHttpHooks}) and OkHttp ({@link OkHttpHooks}), Ktor's client ({@link KtorClientHooks}), each counted once when Spring's
 * request runs on it; Redis at Jedis's connection ({@link RedisHooks}) and Lettuce's
 * ({@link LettuceHooks}); gRPC's client ({@link GrpcClientHooks}); host-name lookups that reach the resolver ({@link DnsHooks}). Each
 * target keeps the application code it was first called from ({@link CallSite}). A call slower
 * than its kind's threshold is counted as slow and kept, with its text, among the recent alerts.
 * A call goes into its thread's own log ({@link EventLog}), folded into its target's stats when
 * the table is read.
 */
final class CallProbe {

    /**
     * SQL is timed at every JDBC driver's and pool's own classes: the loaded implementations of
     * these interfaces outside the JDK ({@link Hook#family}), on the JDBC methods that prepare and
     * execute. Pools wrap drivers and often their own wrappers (DBCP2's guard around its pooled
     * connection, c3p0's and Druid's proxies, p6spy's), so only a thread's outermost execution
     * counts. Any pool or none: Tomcat's, c3p0, Druid, Oracle UCP, DBCP2, or the driver alone
     * behind Spring's DriverManagerDataSource.
     */
    static final String JDBC_CONNECTION = "java.sql.Connection";
    static final String JDBC_STATEMENT = "java.sql.Statement";
    static final Set<String> PREPARE = Set.of("prepareStatement", "prepareCall");
    /** Rows are counted where results are read, at every driver's and pool's result set but HikariCP's proxy. */
    static final String JDBC_RESULT_SET = "java.sql.ResultSet";
    static final Set<String> NEXT = Set.of("next");
    /** Parameters are told apart by how they are bound ({@link BindKinds}), at the statements' own setters. */
    static final String JDBC_PREPARED_STATEMENT = "java.sql.PreparedStatement";
    static final Set<String> NUMBER_SETTERS = Set.of("setInt", "setLong", "setShort", "setByte", "setDouble", "setFloat", "setBigDecimal");
    static final Set<String> STRING_SETTERS = Set.of("setString", "setNString");
    static final Set<String> EXECUTE = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch",
            "executeLargeBatch");
    /**
     * HikariCP's proxies (and their generated subclasses) only hand each call to the driver's own
     * statement, which is timed: left alone, the most common pool pays for one woven call, not two.
     */
    static final List<String> PASS_THROUGH = List.of("com.zaxxer.hikari.");
    static final String SPRING_HTTP_REQUEST = "org.springframework.http.client.AbstractClientHttpRequest";
    private static final int ALERTS_KEPT = 50;

    private final Prepared prepared = new Prepared();
    /** Kind ("sql", "http", "redis") → normalized target → stats: looked up without building a key. */
    final ConcurrentHashMap<String, ConcurrentHashMap<String, CallStats>> calls = new ConcurrentHashMap<>();
    /**
     * Raw statement text → its stats, so an execution costs one lookup where normalizing the
     * text (a lookup of its own) and finding its stats took three. Bounded as SqlText's cache is.
     */
    private final ConcurrentHashMap<String, CallStats> bySql = new ConcurrentHashMap<>();
    private static final int SQL_KEPT = 2_048;
    private final ArrayDeque<Map<String, Object>> alerts = new ArrayDeque<>();
    private final Thresholds thresholds;
    /** Guards every CallStats; taken by readers, and by a calling thread only when its ring is full. */
    private final Object foldLock = new Object();
    /** Calls as {stats index, ns, SLOW | FAILED | HELD | EVENT_LOOP, ns of it waiting for the client's own pool}. */
    private final EventLog log = new EventLog(foldLock, this::fold, 2);
    /** The ring's second user word: pool wait since this thread's last recorded call (see {@link #poolWait}). */
    private static final int POOL_WAIT = EventLog.USER + 1;
    /** Each ring's first user word says, once per thread, whether the thread is an event loop's. */
    private final PerThread rings = new PerThread(() -> {
        long[] ring = log.newRing();
        ring[EventLog.USER] = EventLoops.isEventLoopThread(Thread.currentThread().getName()) ? EVENT_LOOP : 0;
        return ring;
    });
    private final Indexed<CallStats> byIndex = new Indexed<>();
    /**
     * Per thread, how deep it is in Spring's {@code ClientHttpRequest.execute()}. RestTemplate and
     * RestClient run their call through a client culprit also hooks (the JDK's HttpClient, Apache's,
     * OkHttp: Spring Boot picks one of them when it is there), and that call must count once.
     */
    private final Nesting springDepth = new Nesting();
    /**
     * Per thread, the URL of the WebClient exchange it last subscribed, until a JDK HttpClient call
     * to that URL on the same thread takes it: the JDK connector sends right after the exchange is
     * subscribed, outside the hooked method, and that send is the exchange itself.
     */
    private final PerThread webClientUrl = new PerThread(() -> new Object[1]);
    /** A record's flags; ROWS marks a result's rows ({stats index, rows, ROWS, 0}), not a call. */
    private static final long SLOW = 1, FAILED = 2, HELD = 4, EVENT_LOOP = 8, ROWS = 16;
    private final ResultRows resultRows = new ResultRows(this::rowsRead);
    private final BindKinds binds = new BindKinds();
    /** Asked, for every call but SQL, whether its thread holds a pooled connection meanwhile. */
    private final PoolProbe pools;

    CallProbe(Thresholds thresholds, PoolProbe pools) {
        this.thresholds = thresholds;
        this.pools = pools;
    }

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>(sqlHooks());
        h.add(new Hook(SPRING_HTTP_REQUEST, "execute", "()", Hook.TIMED | Hook.SELF | Hook.RETURNED) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                springDepth.enter();
                return System.nanoTime();
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                springDepth.exit();
                Object uri = Reflect.call(self, "getURI");
                Object method = Reflect.call(self, "getMethod");
                String text = method + " " + uri;
                Throwable error = thrown;
                if (error == null && Reflect.number(Reflect.call(returned, "getStatusCode"), "value") >= 500) {
                    error = JdkHttpHooks.ServerError.INSTANCE;  // RestTemplate's error handler runs later, outside execute()
                }
                record(end, "http", method + " " + SqlText.normalizeUrl(String.valueOf(uri)), text, start, error);
            }
        });
        h.addAll(WebClientHooks.hooks(this));
        h.addAll(JdkHttpHooks.hooks(this));
        h.addAll(UrlConnectionHooks.hooks(this));
        h.addAll(JdbcConnectHooks.hooks(this));
        h.addAll(DnsHooks.hooks(this));
        h.addAll(ApacheHttpHooks.hooks(this));
        h.addAll(OkHttpHooks.hooks(this));
        h.addAll(RedisHooks.hooks(this));
        h.addAll(LettuceHooks.hooks(this));
        h.addAll(RedisConnectHooks.hooks(this));
        h.addAll(R2dbcPostgresHooks.hooks(this));
        h.addAll(new VertxSqlHooks(this).hooks());
        h.addAll(new VertxRedisHooks(this).hooks());
        VertxHttpClientHooks vertx = new VertxHttpClientHooks(this);
        h.addAll(vertx.hooks());
        h.addAll(new RestEasyClientHooks(this, vertx).hooks());
        h.addAll(new HelidonClientHooks(this).hooks());
        h.add(MicronautClientHooks.hook(this));
        h.addAll(KtorClientHooks.hooks(this));
        h.addAll(new GrpcClientHooks(this).hooks());
        return h;
    }

    /**
     * Whether this thread is inside Spring's {@code ClientHttpRequest.execute()}: an HTTP client's
     * hook then leaves the call to Spring's, which times the same round trip and names it alike.
     */
    boolean insideSpringRequest() {
        return springDepth.inside();
    }

    /**
     * Another framework's client call that times the whole round trip on this thread (Micronaut's
     * declarative client) and whose transport may be a client culprit also hooks: as with Spring's,
     * the inner client leaves the call to it.
     */
    void outerClientEnter() {
        springDepth.enter();
    }

    void outerClientExit() {
        springDepth.exit();
    }

    /** Notes that this thread subscribed a WebClient exchange to {@code url} (see {@link #webClientUrl}). */
    void webClientExchange(String url) {
        ((Object[]) webClientUrl.get())[0] = url;
    }

    /** Whether a JDK HttpClient call to {@code url} is this thread's WebClient exchange, counted by WebClient's hook; consumes the note. */
    boolean isWebClientExchange(String url) {
        Object[] pending = (Object[]) webClientUrl.get();
        if (pending[0] == null || !pending[0].equals(url)) return false;
        pending[0] = null;
        return true;
    }

    /**
     * The SQL hooks: the text a statement was prepared from, and the time of each execution,
     * prepared or plain, the thread's outermost only ({@link #sqlDepth}).
     */
    private List<Hook> sqlHooks() {
        List<Hook> h = new ArrayList<>();
        h.add(new Hook(JDBC_CONNECTION, "prepare*", PREPARE, "(Ljava/lang/String;", Hook.EXIT | Hook.ARG0 | Hook.RETURNED, PASS_THROUGH) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                if (returned != null && arg0 instanceof String) prepared.put(returned, (String) arg0);
                binds.take();  // a new statement: bindings made for one never executed are not its
            }
        });
        h.add(new BindHook(NUMBER_SETTERS, "(I", 0, BindKinds.NUMBER));
        h.add(new BindHook(STRING_SETTERS, "(ILjava/lang/String;", 0, BindKinds.STRING));
        h.add(new BindHook(Set.of("setObject"), "(ILjava/lang/Object;", Hook.ARG1, 0));
        // execute(), executeQuery(), executeUpdate(), executeBatch(), executeLargeUpdate() of a prepared statement
        h.add(new SqlHook("()", Hook.TIMED | Hook.SELF) {
            @Override
            void executed(long end, long start, Object self, Object sqlArg, Throwable thrown) {
                String sql = prepared.get(self);
                CallStats stats = sql == null ? stats("sql", "(prepared statement)") : sqlStats(sql, self);
                long kinds = binds.take();
                if (kinds != 0 && stats.binds == 0) stats.binds = kinds;  // the first execution's, once
                statement(end, stats, sql, start, thrown);
            }
        });
        h.add(new SqlHook("(Ljava/lang/String;", Hook.TIMED | Hook.ARG0) {
            @Override
            void executed(long end, long start, Object self, Object sqlArg, Throwable thrown) {
                String sql = sqlArg instanceof String ? (String) sqlArg : null;
                statement(end, sql == null ? stats("sql", SqlText.normalizeCached(null)) : sqlStats(sql, self), sql, start, thrown);
            }
        });
        h.add(new Hook(JDBC_RESULT_SET, "next", NEXT, "()Z", Hook.EXIT | Hook.SELF | Hook.RETURNED, PASS_THROUGH) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                if (thrown == null) resultRows.next(self, Boolean.TRUE.equals(returned));
            }
        });
        return h;
    }

    /** A setter of a prepared statement's parameter: notes the parameter's kind for the thread's next execution. */
    private final class BindHook extends Hook {
        private final long kind;

        /** {@code kind} 0: by the value's class ({@code setObject}, which reads ARG1). */
        BindHook(Set<String> setters, String descriptorPrefix, int readsValue, long kind) {
            super(JDBC_PREPARED_STATEMENT, "set*", setters, descriptorPrefix, Hook.EXIT | Hook.ARG0 | readsValue, PASS_THROUGH);
            this.kind = kind;
        }

        @Override
        public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
            if (thrown == null) binds.bind(arg0, kind != 0 ? kind : BindKinds.kindOf(arg1));
        }
    }

    /** A statement's outermost execution: recorded, and its results' rows counted from here ({@link ResultRows}). */
    private void statement(long end, CallStats stats, String sql, long start, Throwable thrown) {
        record(end, stats, sql, start, thrown);
        resultRows.executed(stats.index);
    }

    /** A result's rows, read on this thread: logged beside its statement's calls. */
    private void rowsRead(int statsIndex, long rows) {
        log.put((long[]) rings.get(), statsIndex, rows, ROWS, 0);
    }

    /**
     * Per thread, how deep it is in timed executions: a pool's statement calls its driver's (and a
     * driver may call its own public {@code execute*}), and the statement counts once. One depth for
     * both execute hooks, as either kind may call the other.
     */
    private final Nesting sqlDepth = new Nesting();

    /** A timed {@code execute*} hook on every statement class; counts only the thread's outermost execution. */
    private abstract class SqlHook extends Hook {

        SqlHook(String descriptorPrefix, int reads) {
            super(JDBC_STATEMENT, "execute*", EXECUTE, descriptorPrefix, reads, PASS_THROUGH);
        }

        @Override
        public long probeEnter(int id, Object self, Object arg0) {
            sqlDepth.enter();
            return System.nanoTime();
        }

        @Override
        public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
            long end = System.nanoTime();
            if (sqlDepth.exit()) executed(end, start, self, arg0, thrown);  // else a wrapper's inner call: its outer one counts
        }

        abstract void executed(long end, long start, Object self, Object sqlArg, Throwable thrown);
    }

    /** {@code endNs} is read first thing at the call's exit: the probe's own work (text, lookups) is not the call's time. */
    void record(long endNs, String kind, String target, String text, long startNs, Throwable thrown) {
        record(endNs, stats(kind, target), text, startNs, thrown);
    }

    /** As above, for a call whose stats its hook found on the caller's thread ({@link #stats}). */
    void record(long endNs, CallStats stats, String text, long startNs, Throwable thrown) {
        // The call ran on this thread. A statement needs its connection; any other call made while
        // holding one keeps it from the pool. On an event loop's thread, the call blocked the loop.
        long[] ring = (long[]) rings.get();
        record(ring, endNs, stats, text, startNs, thrown, (!"sql".equals(stats.kind) && pools.holdsConnection() ? HELD : 0) | ring[EventLog.USER]);
    }

    /**
     * Whether this thread holds a pooled connection now: a hook whose call completes on a client's
     * own thread asks on the caller's thread, and passes the answer to the record below.
     */
    boolean holdsConnection() {
        return pools.holdsConnection();
    }

    /**
     * As above, for a call that completed on another thread than its caller's (an asynchronous
     * client's callback, WebClient's exchange), with whether the caller held a pooled connection.
     * Such a call blocked no event loop, whichever thread completes it: an async call waited on
     * with {@code join()} on a loop is not told apart here.
     */
    void record(long endNs, CallStats stats, String text, long startNs, Throwable thrown, boolean held) {
        record(endNs, stats, text, startNs, thrown, held, false);
    }

    /**
     * Ends a call that began elsewhere and put its stats beside its start in {@code pending}
     * (an asynchronous client's: the Vert.x clients'), if it is still pending: recorded here, on
     * the thread that ended it (an event loop the call did not block).
     */
    void endPending(PendingCalls pending, Object key, long endNs, Throwable failure) {
        Object stats = pending.value(key);
        if (!(stats instanceof CallStats)) return;
        long start = pending.take(key);
        if (start == PendingCalls.NONE) return;
        CallStats s = (CallStats) stats;
        record(endNs, s, s.target, start, failure, false);
    }

    /** As above, for a call whose caller waited for it on an event loop's thread ({@link #onEventLoop}, asked there). */
    void record(long endNs, CallStats stats, String text, long startNs, Throwable thrown, boolean held, boolean blockedLoop) {
        record((long[]) rings.get(), endNs, stats, text, startNs, thrown, (held ? HELD : 0) | (blockedLoop ? EVENT_LOOP : 0));
    }

    /** Whether this thread is an event loop's (decided once per thread, by its name). */
    boolean onEventLoop() {
        return (((long[]) rings.get())[EventLog.USER] & EVENT_LOOP) != 0;
    }

    /**
     * Time this thread waited for a connection from an HTTP client's own pool (Apache HttpClient's
     * lease), inside the call it is about to record: that call's time is then partly the pool's.
     */
    void poolWait(long ns) {
        ((long[]) rings.get())[POOL_WAIT] += ns;
    }

    private void record(long[] ring, long endNs, CallStats stats, String text, long startNs, Throwable thrown, long callerFlags) {
        String kind = stats.kind;
        long ns = endNs - startNs;
        double ms = ns / 1e6;
        boolean slow = ms > thresholds.slowMs(kind);
        long poolWait = Math.min(ns, ring[POOL_WAIT]);
        ring[POOL_WAIT] = 0;
        log.put(ring, stats.index, ns, (slow ? SLOW : 0) | (thrown != null ? FAILED : 0) | callerFlags, poolWait);
        if (slow) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("kind", kind);
            a.put("ms", Math.round(ms * 10) / 10.0);
            a.put("thresholdMs", thresholds.slowMs(kind));
            a.put("text", text);
            a.put("thread", Thread.currentThread().getName());
            a.put("epochMs", System.currentTimeMillis());
            synchronized (alerts) {
                if (alerts.size() == ALERTS_KEPT) alerts.removeFirst();
                alerts.addLast(a);
            }
        }
    }

    /** The stats of raw statement text {@code sql}, normalized once per distinct text while the map has room. */
    private CallStats sqlStats(String sql, Object statement) {
        CallStats s = bySql.get(sql);
        if (s != null) return s;
        s = stats("sql", SqlText.normalizeCached(sql));
        if (s.database == null) s.database = databaseOf(statement);
        if (bySql.size() < SQL_KEPT) bySql.putIfAbsent(sql, s);
        return s;
    }

    /** True while a thread asks a driver for its product: a driver that asks its server must not recurse here. */
    private volatile boolean askingDatabase;

    /**
     * The product name and version the statement's driver reports ({@code DatabaseMetaData}'s
     * {@code getDatabaseProductName} and {@code getDatabaseProductVersion}: "MySQL 5.5.5-10.11.19-MariaDB"),
     * or "". Once per distinct statement text, never per call; reflective, as the application's
     * driver classes are not ours to link against.
     */
    private String databaseOf(Object statement) {
        if (askingDatabase) return "";
        askingDatabase = true;
        try {
            Object meta = Reflect.call(Reflect.call(statement, "getConnection"), "getMetaData");
            Object name = Reflect.call(meta, "getDatabaseProductName");
            // With its version: MySQL's driver names a MariaDB server "MySQL", and only the version says "MariaDB".
            Object version = Reflect.call(meta, "getDatabaseProductVersion");
            return !(name instanceof String) ? "" : version instanceof String ? name + " " + version : (String) name;
        } finally {
            askingDatabase = false;
        }
    }

    /**
     * The stats of {@code target}, made on its first call with the call site of this thread's stack.
     * A hook whose call ends on another thread (an async client's callback) looks them up on the
     * caller's thread first, or the site would be the client's own threads: "(unknown)".
     */
    CallStats stats(String kind, String target) {
        ConcurrentHashMap<String, CallStats> ofKind = calls.get(kind);
        if (ofKind == null) ofKind = calls.computeIfAbsent(kind, k -> new ConcurrentHashMap<>());
        CallStats s = ofKind.get(target);  // get first: computeIfAbsent's capturing lambda allocates
        // A target's first call walks the stack once for its call site; every later one finds the stats.
        return s != null ? s : ofKind.computeIfAbsent(target, t -> byIndex.add(i -> new CallStats(kind, t, i, CallSite.here())));
    }

    /** Adds drained calls to their targets; under foldLock. */
    private void fold(long[] records, int n) {
        Object[] table = byIndex.snapshot();
        for (int i = 0; i < n * EventLog.WORDS; i += EventLog.WORDS) {
            long flags = records[i + 2];
            if ((flags & ROWS) != 0) {
                ((CallStats) table[(int) records[i]]).addRows(records[i + 1]);
                continue;
            }
            ((CallStats) table[(int) records[i]]).add(records[i + 1], (flags & SLOW) != 0, (flags & FAILED) != 0, (flags & HELD) != 0,
                    (flags & EVENT_LOOP) != 0, records[i + 3]);
        }
    }

    List<Map<String, Object>> alerts() {
        synchronized (alerts) {
            return new ArrayList<>(alerts);
        }
    }

    /** Folds what every thread has logged, and lets go of the rings of threads that ended. */
    void drain() {
        synchronized (foldLock) {
            log.drainAll();
        }
    }

    /**
     * Rows of table {@code calls}, most total time first.
     * @param requestMs total container time of the requests observed, for the share column (0: unknown)
     */
    List<Map<String, Object>> rows(double requestMs, long requests) {
        synchronized (foldLock) {
            log.drainAll();
            List<CallStats> all = new ArrayList<>();
            for (Map<String, CallStats> ofKind : calls.values()) all.addAll(ofKind.values());
            all.sort(Comparator.comparingDouble(CallStats::totalMs).reversed());
            List<Map<String, Object>> rows = new ArrayList<>();
            for (CallStats c : all) rows.add(c.row(requestMs, requests));
            return rows;
        }
    }
}
