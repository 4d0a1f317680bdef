package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Requests that wait to borrow from a commons-pool2 pool: JedisPool's Redis connections (8 by
 * default), DBCP2's database connections, and the pools other clients build on it. The wait is a
 * park on the pool's deque, which lock-contention alone reads as a contended condition with the
 * generic "shorten the critical section"; a service outside the lab that held its Jedis
 * connection across a partner call got that. Read from {@code object-pools}, the pools' own MBeans
 * sampled once a second; the borrower is the application frame above {@code borrowObject} in the
 * waiters' stacks ({@code locks}), and what it holds the object across is its costliest call of
 * another kind ({@code calls}).
 */
public final class ObjectPoolRule implements Rule {
    /** A tenth of request time spent borrowing is worth a change, a third sets the service's speed. */
    static final double SHARE_WARN = 0.1;
    static final double SHARE_CRITICAL = 0.3;
    /** Without request timings: threads waiting on average. */
    static final double WAITERS_WARN = 1;
    static final double WAITERS_CRITICAL = 4;

    @Override public String id() { return "object-pool"; }
    @Override public String title() { return "Requests wait to borrow from a commons-pool2 pool"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> pools = ev.table("object-pools");
        if (pools.isEmpty()) return notAssessed("no table object-pools (the framework probes did not run)");
        Table t = pools.get();
        Finding.Builder b = finding(Severity.OK).evidence("tables/object-pools");
        if (t.isEmpty()) return b.summary("no commons-pool2 pool in the JVM.").build();
        int top = topPool(t);
        String ref = "tables/object-pools#" + top;
        Numbers n = new Numbers();
        Kind kind = Kind.of(t.text(top, "factory"));
        double waitMs = t.number(top, "borrowWaitMsTotal"), borrowed = t.number(top, "borrowed");
        double waiters = t.number(top, "waitersMean"), max = t.number(top, "maxTotal");
        double windows = t.number(top, "windows"), full = t.number(top, "fullWindows");
        double requestMs = ev.requestTimeMs();
        double share = requestMs > 0 ? Math.min(1, waitMs / requestMs) : Double.NaN;
        String pool = "a commons-pool2 pool of " + kind.objects + " (" + shortName(t.text(top, "factory")) + ", maxTotal "
                + n.tag(Fmt.num(max), ref) + ")";
        String weight = Double.isFinite(share)
                ? "requests spent " + n.tag(Fmt.pct(share), ref) + " of their time waiting to borrow from " + pool
                : n.tag(Fmt.num(waiters), ref) + " threads waited on average to borrow from " + pool;
        Severity sev = Double.isFinite(share)
                ? share >= SHARE_CRITICAL && waiters > 0 ? Severity.CRITICAL : share >= SHARE_WARN ? Severity.WARN : Severity.OK
                : waiters >= WAITERS_CRITICAL ? Severity.CRITICAL : waiters >= WAITERS_WARN ? Severity.WARN : Severity.OK;
        if (sev == Severity.OK) {
            return b.summary(weight + "; " + n.tag(Fmt.num(waiters), ref) + " threads waiting on average.").numbers(n.refs()).build();
        }
        String borrower = borrowerOf(ev, kind);
        int held = heldAcrossRow(ev, kind, borrower);
        // Held for nothing but the pool's own calls, and those are slow: the pool is full because they are.
        int own = held < 0 ? ownCall(ev, kind, borrower) : -1;
        boolean ownSlow = own >= 0 && ev.rows("calls").map(c -> c.number(own, "shareOfRequestTime") >= share
                || c.number(own, "p99Ms") >= SlowCallsRule.threshold(kind.callKind)).orElse(false);
        double maxWait = t.number(top, "maxWaitMs");
        return b.severity(sev).score(Double.isFinite(share) ? share : Math.min(1, waiters / 10)).evidence(ref)
                .culprit(borrower != null ? borrower : shortName(t.text(top, "factory")))
                .summary(weight + ": all " + n.tag(Fmt.num(max), ref) + " lent out in " + n.tag(Fmt.pct(full / windows), ref)
                        + " of " + Fmt.num(windows) + " windows, " + n.tag(Fmt.num(waiters), ref) + " threads waiting on average (most "
                        + n.tag(Fmt.num(t.number(top, "waitersMax")), ref) + "), " + n.tag(Fmt.num(borrowed), ref)
                        + " borrows waiting " + n.tag(Fmt.ms(waitMs / Math.max(1, borrowed)), ref) + " each on average"
                        + (borrower == null ? "" : "; borrowed at " + borrower) + (held < 0 ? "" : heldAcross(ev, held, n))
                        + (ownSlow ? busyIn(ev, own, n) : "") + ".")
                .numbers(n.refs())
                .explanation("A commons-pool2 pool lends at most maxTotal objects at once (" + kind.objects + " here) and"
                        + " parks every other borrower until one is given back" + (maxWait < 0 ? ", for as long as it takes (maxWait"
                        + " is unbounded)" : "") + ". The wait grows with concurrency while the dependency behind the pool stays"
                        + " fast: the requests queue for the pool, not for " + kind.dependency + ". Whatever a holder does between"
                        + " borrowing and returning keeps the object from everyone else.")
                .fix("Hold each " + kind.object + " only for the calls that need it: borrow it (try-with-resources on "
                        + kind.borrow + ") around those calls, not around remote calls or other slow work. Then size maxTotal"
                        + " for the demand (borrow rate × hold time, by Little's Law; 8 by default), and set maxWait so that a"
                        + " borrow fails fast instead of queueing request threads: " + kind.settings + ".")
                .confirm(ev.confirm("pools") + (borrower == null ? "" : " and " + ev.confirm("trace " + borrower + " -n 5")))
                .explains("lock-contention").explains("tail-latency").explains("thread-oversubscription")
                .explains("container-queue")
                .build();
    }

    /** The pool requests waited on longest. */
    private static int topPool(Table t) {
        int top = 0;
        for (int i = 1; i < t.rows().size(); i++) {
            if (t.number(i, "borrowWaitMsTotal") > t.number(top, "borrowWaitMsTotal")) top = i;
        }
        return top;
    }

    /** The code that borrows: seen in a waiter's stack, else the commonest caller of the pool's kind of call. */
    private static String borrowerOf(Evidence ev, Kind kind) {
        String seen = borrower(ev);
        return seen != null ? seen : user(ev, kind.callKind);
    }

    /** What the object is held across: the borrower's costliest call of another kind than the pool's own, or -1. */
    private static int heldAcrossRow(Evidence ev, Kind kind, String borrower) {
        return borrower == null ? -1 : LockContentionRule.costliestCall(ev, c -> Frames.stripLine(c).equals(borrower), kind.callKind);
    }

    /** The costliest call of the pool's own kind (by the borrower when known), or -1. */
    private static int ownCall(Evidence ev, Kind kind, String borrower) {
        if (kind.callKind.isEmpty()) return -1;
        return LockContentionRule.costliest(ev, (c, i) -> c.text(i, "kind").equals(kind.callKind)
                && (borrower == null || Frames.stripLine(Evidence.text(c, i, "caller")).equals(borrower)));
    }

    /**
     * Whether the case's busiest commons-pool2 pool lends connections for calls of {@code callKind}
     * ("redis", "sql") and its borrowers hold them across nothing else: a slow call of that kind
     * then keeps the pool full, and is the cause of the wait ({@link SlowCallsRule}).
     */
    static boolean busyWithOwnCalls(Evidence ev, String callKind) {
        Optional<Table> pools = ev.rows("object-pools");
        if (pools.isEmpty() || callKind == null) return false;
        Kind kind = Kind.of(pools.get().text(topPool(pools.get()), "factory"));
        return kind.callKind.equals(callKind) && heldAcrossRow(ev, kind, borrowerOf(ev, kind)) < 0;
    }

    /** "; while lent, the connections are busy in redis "KEYS" (4.6 ms a call, 50 % of request time): …". */
    private static String busyIn(Evidence ev, int row, Numbers n) {
        Table c = ev.rows("calls").orElseThrow();
        String ref = "tables/calls#" + row;
        return "; while lent, they are busy in " + c.text(row, "kind") + " " + SlowCallsRule.quote(c.text(row, "target")) + " ("
                + n.tag(Fmt.ms(c.number(row, "totalMs") / c.number(row, "count")), ref) + " a call, "
                + n.tag(Fmt.pct(c.number(row, "shareOfRequestTime")), ref) + " of request time): the pool is full because its"
                + " calls are slow, and a larger one would only queue more of them at the dependency";
    }

    /** What the pool lends, told by its factory's class. */
    enum Kind {
        JEDIS("redis.clients.", "Redis connections", "Redis connection", "pool.getResource()", "Redis", "redis",
                "JedisPoolConfig.setMaxTotal and setMaxWait (Spring: spring.data.redis.jedis.pool.max-active and max-wait)"),
        DBCP("org.apache.commons.dbcp2.", "database connections", "connection", "dataSource.getConnection()", "the database", "sql",
                "BasicDataSource.setMaxTotal and setMaxWait (Spring: spring.datasource.dbcp2.max-total and max-wait-millis)"),
        OTHER("", "pooled objects", "pooled object", "pool.borrowObject()", "the resource behind it", "",
                "GenericObjectPoolConfig.setMaxTotal and setMaxWait");

        final String prefix, objects, object, borrow, dependency, callKind, settings;

        Kind(String prefix, String objects, String object, String borrow, String dependency, String callKind, String settings) {
            this.prefix = prefix;
            this.objects = objects;
            this.object = object;
            this.borrow = borrow;
            this.dependency = dependency;
            this.callKind = callKind;
            this.settings = settings;
        }

        static Kind of(String factory) {
            for (Kind k : values()) if (!k.prefix.isEmpty() && factory.startsWith(k.prefix)) return k;
            return OTHER;
        }
    }

    /** The application frame above {@code borrowObject} in the waiters' stacks of the most-blocked such lock, or null. */
    static String borrower(Evidence ev) {
        for (String name : new String[] {"locks", "vthread-locks"}) {
            Optional<Table> locks = ev.rows(name);
            if (locks.isEmpty()) continue;
            Table t = locks.get();
            int best = -1;
            String app = null;
            for (int i = 0; i < t.rows().size(); i++) {
                String a = Frames.applicationAbove(Frames.rootFirst(Evidence.stack(t, i, "waiterStack")), ObjectPoolRule::borrowFrame);
                if (a != null && (best < 0 || t.number(i, "blockedMs") > t.number(best, "blockedMs"))) {
                    best = i;
                    app = a;
                }
            }
            if (app != null) return app;
        }
        return null;
    }

    /**
     * The caller of most calls of the pool's kind ({@code redis} for Jedis): the code that uses the
     * borrowed objects, when no waiter's stack shows the borrow (the agent's park tracer times lock
     * acquisitions, not a condition's await, and JFR's park events are off). Null when unknown.
     */
    static String user(Evidence ev, String callKind) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty() || callKind.isEmpty()) return null;
        Table t = calls.get();
        Map<String, Double> counts = new LinkedHashMap<>();
        for (int i = 0; i < t.rows().size(); i++) {
            String caller = Evidence.text(t, i, "caller");
            if (t.text(i, "kind").equals(callKind) && Frames.isApplication(caller)) {
                counts.merge(Frames.stripLine(caller), t.number(i, "count"), Double::sum);
            }
        }
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }

    static boolean borrowFrame(String frame) {
        return frame.startsWith("org.apache.commons.pool2.impl.Generic") && frame.contains(".borrowObject");
    }

    private static String heldAcross(Evidence ev, int row, Numbers n) {
        return ", which holds it across " + LockContentionRule.call(ev, row, n);
    }

    /** {@code redis.clients.jedis.JedisFactory<redis.clients.jedis.Jedis>} (FactoryType gives the type arguments) → {@code JedisFactory}. */
    static String shortName(String type) {
        int generic = type.indexOf('<');
        String raw = generic < 0 ? type : type.substring(0, generic);
        return raw.isEmpty() ? "factory unknown" : raw.substring(raw.lastIndexOf('.') + 1);
    }
}
