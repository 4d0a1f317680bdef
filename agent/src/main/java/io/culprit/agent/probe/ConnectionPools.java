package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The JDBC (and R2DBC, and Vert.x SQL client) connection pools the probes found at their first acquire, of any of the libraries
 * {@link PoolProbe} weaves, read once a second through each library's public getters: connections
 * lent out, idle, threads waiting for one, and the pool's current size. The figures of all pools
 * are summed into series {@code pools}' {@code db*} columns: a service rarely runs two, and the
 * rules reason about the database's connections as one budget.
 */
final class ConnectionPools {

    /** One library's pool class and the getters that read it. */
    enum Kind {
        HIKARI(PoolProbe.HIKARI_POOL, "hikari", "getActiveConnections", "getIdleConnections", "getThreadsAwaitingConnection", "getTotalConnections"),
        /** Tomcat's JDBC pool (tomcat-jdbc, also Spring Boot's second choice): its getSize is its current size. */
        TOMCAT(PoolProbe.TOMCAT_POOL, "tomcat-jdbc", "getActive", "getIdle", "getWaitCount", "getSize"),
        /**
         * DBCP2, found at its PoolingDataSource (BasicDataSource's inner source): its figures are its
         * commons-pool2 GenericObjectPool's, which has no size getter (lent out + idle is its size).
         */
        DBCP2(PoolProbe.DBCP2_SOURCE, "dbcp2", "getNumActive", "getNumIdle", "getNumWaiters", null),
        /** c3p0's data sources (ComboPooledDataSource and the others), for the default user's pool. */
        C3P0(PoolProbe.C3P0_SOURCE, "c3p0", "getNumBusyConnectionsDefaultUser", "getNumIdleConnectionsDefaultUser",
                "getNumThreadsAwaitingCheckoutDefaultUser", "getNumConnectionsDefaultUser"),
        /** Alibaba's Druid: lent out (active) and pooled (idle); its size is their sum. */
        DRUID(PoolProbe.DRUID_SOURCE, "druid", "getActiveCount", "getPoolingCount", "getWaitThreadCount", null),
        /**
         * R2DBC's pool (r2dbc-pool, on reactor-pool), read through its {@code PoolMetrics}: pending
         * acquires are subscribers waiting for a connection, not threads.
         */
        R2DBC(PoolProbe.R2DBC_POOL, "r2dbc-pool", "acquiredSize", "idleSize", "pendingAcquireSize", "allocatedSize"),
        /**
         * The Vert.x SQL client's pool, read through the connection pool of Vert.x's core it wraps:
         * {@code waiters} and {@code size} (connections open) through its getters, the connections
         * lent by counting its slots in use, which no getter tells ({@link #read}).
         */
        VERTX_SQL(PoolProbe.VERTX_SQL_POOL, "vertx-sql-client", null, null, "waiters", "size"),
        /**
         * Agroal (Quarkus' and WildFly's pool): threads waiting through its public getter; its own
         * active count is kept only with metrics enabled (off by default in Quarkus), so the
         * connections lent are counted by their handlers' state ({@link #read}).
         */
        AGROAL(PoolProbe.AGROAL_POOL, "agroal", null, null, "awaitingCount", null);

        final String className, label;
        final String active, idle, waiting, total;

        Kind(String className, String label, String active, String idle, String waiting, String total) {
            this.className = className;
            this.label = label;
            this.active = active;
            this.idle = idle;
            this.waiting = waiting;
            this.total = total;
        }

        /**
         * The object whose getters read the pool: DBCP2's data source keeps its pool in a private
         * field, R2DBC's pool hands out its metrics.
         */
        Object reader(Object pool) {
            if (this == R2DBC) {
                Object metrics = Reflect.call(pool, "getMetrics");
                return metrics instanceof java.util.Optional ? ((java.util.Optional<?>) metrics).orElse(null) : null;
            }
            return this == DBCP2 || this == VERTX_SQL ? Reflect.field(pool, "pool") : pool;
        }

        double waiting(Object pool) {
            return Reflect.number(reader(pool), waiting);
        }

        /** Idle connections now; a pool with no idle getter (Vert.x's, Agroal's) is counted as {@link #read} counts it. */
        double idle(Object pool) {
            return idle == null ? read(pool)[IDLE] : Reflect.number(reader(pool), idle);
        }

        /** The most connections the pool opens, from its configuration; NaN if unreadable. */
        double max(Object pool) {
            switch (this) {
                case HIKARI: return Reflect.number(Reflect.field(pool, "config"), "getMaximumPoolSize");
                case TOMCAT: return Reflect.number(Reflect.call(pool, "getPoolProperties"), "getMaxActive");
                case C3P0: return Reflect.number(pool, "getMaxPoolSize");
                case DRUID: return Reflect.number(pool, "getMaxActive");
                case AGROAL: return Reflect.number(Reflect.call(pool, "getConfiguration"), "maxSize");
                case R2DBC: return Reflect.number(reader(pool), "getMaxAllocatedSize");
                case VERTX_SQL: {
                    Object max = Reflect.field(pool, "maxSize");
                    return max instanceof Number ? ((Number) max).doubleValue() : Double.NaN;
                }
                default: return Reflect.number(reader(pool), "getMaxTotal");
            }
        }

        /**
         * The pool's name: HikariCP's toString is its pool name; Tomcat's pool and Druid's have a
         * getName, c3p0's a data source name (Druid's toString dumps every connection); DBCP2's none.
         */
        String name(Object pool) {
            Object name = this == TOMCAT || this == DRUID ? Reflect.call(pool, "getName")
                    : this == C3P0 ? Reflect.call(pool, "getDataSourceName") : null;
            if (name != null && !name.toString().isEmpty()) return name.toString();
            if (this == AGROAL) return "agroal@" + Integer.toHexString(System.identityHashCode(pool));
            return this == HIKARI ? String.valueOf(pool) : pool.getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(pool));
        }

        /** The kind of a pool a hook found: its class, or a superclass, is the kind's. */
        static Kind of(Object pool) {
            for (Class<?> c = pool.getClass(); c != null; c = c.getSuperclass()) {
                for (Kind k : values()) if (k.className.equals(c.getName())) return k;
            }
            return HIKARI;  // unreachable: only the hooks above add pools
        }
    }

    /** Table {@code db-pools}: each pool found, its library, and the size it may grow to. */
    static final List<String> COLUMNS = List.of("pool", "library", "max");

    private final List<Object> pools = new CopyOnWriteArrayList<>();

    /** Adds {@code pool} once; called at every acquire. */
    void remember(Object pool) {
        PoolProbe.remember(pools, pool);
    }

    boolean isEmpty() {
        return pools.isEmpty();
    }

    /** Pools found so far, for tests. */
    List<Object> found() {
        return List.copyOf(pools);
    }

    /**
     * Adds the summed {@code dbActive}, {@code dbIdle}, {@code dbPending} (the larger of the
     * waiting threads now and {@code pendingMax}, the most seen by a waited acquire this window)
     * and {@code dbTotal}; NaN where a pool's getter could not be read.
     */
    void sample(Map<String, Double> row, long pendingMax) {
        double[] sum = new double[4];
        for (Object p : pools) {
            double[] r = read(p);
            for (int i = 0; i < sum.length; i++) sum[i] += r[i];
        }
        row.put("dbActive", sum[ACTIVE]);
        row.put("dbIdle", sum[IDLE]);
        row.put("dbPending", Math.max(sum[WAITING], pendingMax));
        row.put("dbTotal", sum[TOTAL]);
    }

    private static final int ACTIVE = 0, IDLE = 1, WAITING = 2, TOTAL = 3;

    /** One pool's {active, idle, waiting, total} now, through its library's getters (NaN where unreadable). */
    private static double[] read(Object pool) {
        Kind k = Kind.of(pool);
        Object r = k.reader(pool);
        if (k == Kind.AGROAL) return agroal(pool);
        if (k == Kind.VERTX_SQL) {
            double total = Reflect.number(r, k.total), lent = slotsInUse(r);
            return new double[] {lent, total - lent, Reflect.number(r, k.waiting), total};
        }
        double active = Reflect.number(r, k.active), idle = Reflect.number(r, k.idle);
        return new double[] {active, idle, Reflect.number(r, k.waiting), k.total == null ? active + idle : Reflect.number(r, k.total)};
    }

    /**
     * Agroal's pool: its connection handlers, lent out while CHECKED_OUT (or FLUSH, a lent one
     * marked to be destroyed at its return, as Agroal's own count has it); NaN if unreadable.
     */
    private static double[] agroal(Object pool) {
        Object all = Reflect.field(pool, "allConnections");
        double waiting = Reflect.number(pool, Kind.AGROAL.waiting);
        if (!(all instanceof Iterable)) return new double[] {Double.NaN, Double.NaN, waiting, Double.NaN};
        int total = 0, lent = 0;
        for (Object handler : (Iterable<?>) all) {
            total++;
            Object state = Reflect.field(handler, "state");
            String s = state == null ? "" : state.toString();
            if (s.equals("CHECKED_OUT") || s.equals("FLUSH")) lent++;
        }
        return new double[] {lent, total - lent, waiting, total};
    }

    /** Vert.x core's pool: its slots (one per connection, open or opening) whose usage is above 0; NaN if unreadable. */
    private static double slotsInUse(Object pool) {
        Object slots = Reflect.field(pool, "slots");
        if (!(slots instanceof Object[])) return Double.NaN;
        int lent = 0;
        for (Object slot : (Object[]) slots) {
            Object usage = slot == null ? null : Reflect.field(slot, "usage");
            if (usage instanceof Number && ((Number) usage).intValue() > 0) lent++;
        }
        return lent;
    }

    /** The rows of table {@code db-pools}. */
    List<Map<String, Object>> rows() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Object p : pools) {
            Kind k = Kind.of(p);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("pool", k.name(p));
            row.put("library", k.label);
            row.put("max", k.max(p));
            rows.add(row);
        }
        return rows;
    }

    /** The live rows of the {@code pools} command, one per pool. */
    void describe(List<Map<String, Object>> rows) {
        for (Object p : pools) {
            double[] r = read(p);
            Map<String, Object> row = new LinkedHashMap<>();
            Kind k = Kind.of(p);
            row.put("pool", k.label + " " + k.name(p));
            row.put("active", r[ACTIVE]);
            row.put("idle", r[IDLE]);
            row.put("pending", r[WAITING]);
            row.put("total", r[TOTAL]);
            rows.add(row);
        }
    }
}
