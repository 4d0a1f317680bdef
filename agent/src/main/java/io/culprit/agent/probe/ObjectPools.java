package io.culprit.agent.probe;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * commons-pool2 pools (JedisPool, DBCP2's connections, and the pools of other clients built on
 * it), found two ways: by the MBean a {@code GenericObjectPool} registers in the platform
 * MBeanServer (its {@code jmxEnabled}, on by default), and by the first borrow the probes see
 * ({@code borrowObject} woven to note its receiver only), for the pools that register none: DBCP2's
 * BasicDataSource enables its pool's MBean only when given a jmxName. Read once a second beside
 * the other pools, the MBeans' attributes or the same public getters. Per pool, over the collection: the windows in which
 * every object was lent out, the threads waiting for one, and the borrows with their waits (the
 * pool's own mean over its last 100 borrows, weighted by the window's borrows).
 */
final class ObjectPools {

    static final List<String> COLUMNS = List.of("pool", "factory", "maxTotal", "maxWaitMs", "windows", "fullWindows",
            "activeMean", "waitersMean", "waitersMax", "borrowed", "borrowWaitMsTotal", "borrowWaitMsMax");

    private static final String[] ATTRIBUTES = {
        "NumActive", "NumIdle", "MaxTotal", "NumWaiters", "MeanBorrowWaitTimeMillis", "BorrowedCount", "FactoryType", "MaxWaitMillis"
    };
    /** Pools created after the collection started (a lazily built client) are found within this. */
    private static final long REQUERY_MS = 10_000;

    private static final class Stats {
        String factory = "";
        double maxTotal = Double.NaN, maxWaitMs = Double.NaN;
        long lastBorrowed = -1;
        boolean gone; // closed: its figures stay in the table
        double active = Double.NaN, idle = Double.NaN, waiters = Double.NaN; // the last reading
        int windows, fullWindows;
        double activeSum, waitersSum, waitersMax, borrowed, waitMsTotal, waitMsMax;
    }

    static final String POOL = "org.apache.commons.pool2.impl.GenericObjectPool";

    private final Map<ObjectName, Stats> pools = new LinkedHashMap<>();
    /** Pools seen at a borrow that have no MBean, by identity: read through their getters. */
    private final Map<Object, Stats> instances = new java.util.IdentityHashMap<>();
    private final List<Object> borrowed = new java.util.concurrent.CopyOnWriteArrayList<>();
    private long nextQueryMs;

    /**
     * Hooks {@code GenericObjectPool.borrowObject}: the Duration overload (2.10+, which the others
     * call) and the long one (older releases' main path). The hook only notes the receiver.
     */
    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        for (String descriptor : new String[] {"(Ljava/time/Duration;)", "(J)"}) {
            h.add(new Hook(POOL, "borrowObject", descriptor, Hook.ENTER | Hook.SELF) {
                @Override
                public long probeEnter(int id, Object self, Object arg0) {
                    remember(self);
                    return 0L;
                }
            });
        }
        return h;
    }

    /** Notes a pool seen at a borrow: no lock and no allocation once it is known. */
    void remember(Object pool) {
        PoolProbe.remember(borrowed, pool);
    }

    /** One window: every pool's state now. */
    synchronized void sample() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        long now = System.currentTimeMillis();
        if (now >= nextQueryMs) {
            nextQueryMs = now + REQUERY_MS;
            for (ObjectName name : server.queryNames(pattern(), null)) {
                String type = name.getKeyProperty("type");
                if (type != null && type.endsWith("ObjectPool")) pools.computeIfAbsent(name, k -> new Stats()).gone = false;
            }
        }
        for (Map.Entry<ObjectName, Stats> e : pools.entrySet()) {
            if (!e.getValue().gone) e.getValue().gone = !read(server, e.getKey(), e.getValue());
        }
        for (Object p : borrowed) {
            Object jmx = Reflect.call(p, "getJmxName");
            if (jmx instanceof ObjectName && pools.containsKey(jmx)) continue; // read through its MBean
            Stats s = instances.computeIfAbsent(p, k -> new Stats());
            if (s.gone) continue;
            if (Boolean.TRUE.equals(Reflect.call(p, "isClosed"))) {
                s.gone = true;
                continue;
            }
            Map<String, Object> a = new LinkedHashMap<>();
            for (String name : ATTRIBUTES) a.put(name, Reflect.call(p, "get" + name));
            fold(s, a);
        }
    }

    /** Reads one pool into its figures; false when it is gone (closed and unregistered). */
    private static boolean read(MBeanServer server, ObjectName name, Stats s) {
        AttributeList list;
        try {
            list = server.getAttributes(name, ATTRIBUTES);
        } catch (InstanceNotFoundException e) {
            return false;
        } catch (Exception e) {
            return true; // a pool that cannot answer now keeps its figures
        }
        Map<String, Object> a = new LinkedHashMap<>();
        for (Object o : list) {
            Attribute at = (Attribute) o;
            a.put(at.getName(), at.getValue());
        }
        fold(s, a);
        return true;
    }

    /** One window's reading of a pool (attribute name → value) into its figures. */
    private static void fold(Stats s, Map<String, Object> a) {
        if (a.get("FactoryType") instanceof String) s.factory = (String) a.get("FactoryType");
        s.maxTotal = number(a.get("MaxTotal"));
        s.maxWaitMs = number(a.get("MaxWaitMillis"));
        s.active = number(a.get("NumActive"));
        s.idle = number(a.get("NumIdle"));
        s.waiters = number(a.get("NumWaiters"));
        double borrowedNow = number(a.get("BorrowedCount"));
        if (Double.isNaN(borrowedNow)) return;
        long borrowed = (long) borrowedNow;
        if (s.lastBorrowed < 0) {
            s.lastBorrowed = borrowed; // the first reading is the baseline: borrows before the collection do not count
            return;
        }
        double active = s.active, waiters = s.waiters, meanWait = number(a.get("MeanBorrowWaitTimeMillis"));
        long delta = Math.max(0, borrowed - s.lastBorrowed);
        s.lastBorrowed = borrowed;
        s.windows++;
        if (s.maxTotal > 0 && active >= s.maxTotal) s.fullWindows++;
        if (!Double.isNaN(active)) s.activeSum += active;
        if (!Double.isNaN(waiters)) {
            s.waitersSum += waiters;
            s.waitersMax = Math.max(s.waitersMax, waiters);
        }
        s.borrowed += delta;
        if (delta > 0 && meanWait >= 0) {
            s.waitMsTotal += delta * meanWait;
            s.waitMsMax = Math.max(s.waitMsMax, meanWait);
        }
    }

    /** Table {@code object-pools}: a row per pool read in at least one window. */
    synchronized List<Map<String, Object>> rows() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map.Entry<String, Stats> e : all().entrySet()) {
            Stats s = e.getValue();
            if (s.windows == 0) continue;
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pool", e.getKey());
            r.put("factory", s.factory);
            r.put("maxTotal", s.maxTotal);
            r.put("maxWaitMs", s.maxWaitMs);
            r.put("windows", s.windows);
            r.put("fullWindows", s.fullWindows);
            r.put("activeMean", s.activeSum / s.windows);
            r.put("waitersMean", s.waitersSum / s.windows);
            r.put("waitersMax", s.waitersMax);
            r.put("borrowed", s.borrowed);
            r.put("borrowWaitMsTotal", s.waitMsTotal);
            r.put("borrowWaitMsMax", s.waitMsMax);
            rows.add(r);
        }
        return rows;
    }

    /** The live view for the {@code pools} command: the last second's reading of each pool. */
    synchronized void describe(List<Map<String, Object>> rows) {
        for (Map.Entry<String, Stats> e : all().entrySet()) {
            Stats s = e.getValue();
            if (s.gone) continue;
            // FactoryType names the type lent too: redis.clients.jedis.JedisFactory<redis.clients.jedis.Jedis>
            String raw = s.factory.indexOf('<') < 0 ? s.factory : s.factory.substring(0, s.factory.indexOf('<'));
            String factory = raw.substring(raw.lastIndexOf('.') + 1);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pool", "pool2 " + e.getKey() + (factory.isEmpty() ? "" : " " + factory));
            r.put("active", s.active);
            r.put("idle", s.idle);
            r.put("pending", s.waiters);
            r.put("total", s.maxTotal);
            rows.add(r);
        }
    }

    /** Every pool by its name in the table: the MBean's {@code name}, or for one found at a borrow its identity. */
    private Map<String, Stats> all() {
        Map<String, Stats> out = new LinkedHashMap<>();
        for (Map.Entry<ObjectName, Stats> e : pools.entrySet()) {
            String name = e.getKey().getKeyProperty("name");
            out.put(name == null ? e.getKey().toString() : name, e.getValue());
        }
        for (Map.Entry<Object, Stats> e : instances.entrySet()) {
            out.put(e.getKey().getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(e.getKey())), e.getValue());
        }
        return out;
    }

    private static ObjectName pattern() {
        try {
            return new ObjectName("org.apache.commons.pool2:*");
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }

    private static double number(Object v) {
        return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
    }
}
