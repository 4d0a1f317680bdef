package io.culprit.jfr.collect;

import io.culprit.jfr.ParkEvent;
import io.culprit.model.ClientLibraries;
import io.culprit.model.IdleWaits;
import io.culprit.model.RunBlocking;
import io.culprit.model.Table;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;

/**
 * Table {@code locks}: contended monitor enters, lock parks and, on a request's path,
 * {@code Object.wait}s (kind {@code wait}, the notifier as owner) and parks on a client's reply
 * (kind {@code reply}: {@link ClientLibraries#awaitsReply}), and Kotlin's runBlocking waiting for its
 * coroutine (kind {@code run-blocking}: {@link RunBlocking}) by lock class, with the blocked
 * (waiter) stack, the owner and the owner's stack.
 *
 * <p>JFR names a monitor's previous owner but not what it was doing. The owner stack is found by
 * correlation: every event of the owner thread that carries a stack (execution samples, sleeps,
 * waits, I/O, its own blocking) and falls inside a waiter's blocked interval was, by definition,
 * done while holding the lock. Parks do not name the owner; their owner columns stay null.
 *
 * <p>Parks whose blocker is a condition (idle pool threads in {@code queue.take()}) are waits for
 * work, not contention, and are left out: only lock-like blockers (…Lock, …Sync, Semaphore) count.
 * Parks come from JFR's {@code jdk.ThreadPark} or, where the agent's park tracer runs, from its
 * {@link ParkEvent}, which holds only those blockers.
 */
public final class LockCollector implements EventCollector, SampleCollector {
    /** Bounds memory on long live streams; the table is a ranking, so a sample of this size suffices. */
    private static final int MAX_ACTIVITIES = 200_000;
    private static final int MAX_INTERVALS = 5_000;

    private static final class Group {
        final String lockClass, kind;
        long events, eventLoop;
        double blockedMs;
        final StackCounter waiters = new StackCounter();
        final Map<Long, long[]> owners = new HashMap<>(); // tid -> count
        final Map<Long, String> ownerNames = new HashMap<>();
        final List<long[]> intervals = new ArrayList<>(); // ownerTid, startUs, endUs

        Group(String lockClass, String kind) {
            this.lockClass = lockClass;
            this.kind = kind;
        }
    }

    private static final class Activity {
        final long startUs, endUs;
        final List<String> stack;

        Activity(long startUs, long endUs, List<String> stack) {
            this.startUs = startUs;
            this.endUs = endUs;
            this.stack = stack;
        }
    }

    private final Map<String, Group> groups = new HashMap<>();
    private final Map<Long, List<Activity>> activity = new HashMap<>();
    private int activities;

    @Override
    public Set<String> events() {
        return Set.of("jdk.JavaMonitorEnter", "jdk.ThreadPark", ParkEvent.NAME, CpuSample.EVENT, "jdk.ThreadSleep",
                "jdk.JavaMonitorWait", "jdk.SocketRead", "jdk.SocketWrite", "jdk.FileRead", "jdk.FileWrite");
    }

    @Override
    public void accept(RecordedEvent e) {
        String name = e.getEventType().getName();
        if (name.equals(CpuSample.EVENT)) {
            CpuSample s = CpuSample.ofJfr(e);
            if (s != null) sample(s);
            return;
        }
        List<String> stack = Frames.of(e.getStackTrace());
        RecordedThread thread = e.getThread();
        if (thread != null && !stack.isEmpty()) activity(thread.getJavaThreadId(), EventCollector.waitStart(e), e.getEndTime(), stack);
        if (idleWorker(stack)) return;
        if (name.equals("jdk.JavaMonitorEnter")) {
            RecordedClass c = e.getValue("monitorClass");
            Group g = group(c == null ? "?" : c.getName(), "monitor");
            record(g, e, stack);
            owner(g, e.getValue("previousOwner"), e);
        } else if (name.equals("jdk.JavaMonitorWait")) {
            // Object.wait on a request's path: a hand-made pool or queue (c3p0, a synchronized
            // checkout loop) that parks nothing and enters no contended monitor, so neither event above
            // sees it. Waits inside a dependency's client are that client's (H2's row locks: db-waits).
            if (!RequestWaitCollector.onRequestPath(stack) || insideClient(stack)) return;
            RecordedClass c = e.getValue("monitorClass");
            Group g = group(c == null ? "?" : c.getName(), "wait");
            record(g, e, stack);
            // The thread that notified the waiter let it go: the resource's holder, or the worker done with its task.
            owner(g, e.getValue("notifier"), e);
        } else if (name.equals("jdk.ThreadPark") || name.equals(ParkEvent.NAME)) {
            RecordedClass c = e.getValue("parkedClass");
            if (c == null || insideProbedCall(stack)) return;
            // A client's caller waiting for its reply (gRPC's blocking stubs): a remote call's wait, on a request's path only.
            if (ClientLibraries.awaitsReply(c.getName())) {
                if (RequestWaitCollector.onRequestPath(stack)) record(group(c.getName(), "reply"), e, stack);
            } else if (RunBlocking.isBlocker(c.getName())) {
                record(group(c.getName(), RunBlocking.KIND), e, stack);
            } else if (isLock(c.getName())) {
                record(group(c.getName(), "park"), e, stack);
            }
        }
    }

    /** What an owner thread was doing on CPU while it held a lock: see the class comment. */
    @Override
    public void sample(CpuSample s) {
        activity(s.threadId, s.time, s.time, s.stack);
    }

    private void activity(long threadId, Instant start, Instant end, List<String> stack) {
        if (activities >= MAX_ACTIVITIES) return;
        activity.computeIfAbsent(threadId, k -> new ArrayList<>()).add(new Activity(us(start), us(end), stack));
        activities++;
    }

    /** A pool's thread waiting for its next task ({@link IdleWaits}). */
    static boolean idleWorker(List<String> stack) {
        return IdleWaits.idleWorker(stack);
    }

    /**
     * A loop's wait inside its own selector's select: the wake-up handshake with the threads that
     * hand it work ({@code EPollSelectorImpl.clearInterrupt} against their {@code wakeup()}), whose
     * waits grow when those threads are off the CPU. The loop was about to wait for I/O anyway; a
     * Micronaut service saturated by its executor's work read "event loop blocked 0.6 s per second"
     * at Netty's select.
     */
    static boolean inSelector(List<String> stack) {
        for (String f : stack) if (f.startsWith("sun.nio.ch.SelectorImpl.lockAndDoSelect")) return true;
        return false;
    }

    /**
     * A park inside a client whose calls the probes time is that call's own wait: the JDK's
     * HttpClient.send parks on a CompletableFuture until the response is in. It is in the
     * {@code calls} table already; as a park it read as "work handed to another pool" and took the
     * verdict from a request holding a pooled connection across that call.
     */
    /** Whether the first frame outside the JDK is a dependency client's (pool, driver, HTTP or Redis client). */
    static boolean insideClient(List<String> stack) {
        return ClientLibraries.isClient(Frames.topNonJdk(stack));
    }

    static boolean insideProbedCall(List<String> stack) {
        return ClientLibraries.insideProbedCall(stack);
    }

    /**
     * Whether a park on an instance of {@code cls} is contention: the same test decides what the
     * agent's park tracer records, so its events and this table agree.
     */
    public static boolean isLock(String cls) {
        if (cls.contains("ConditionObject")) return false;
        return cls.contains("Lock") || cls.endsWith("Sync") || cls.contains("Semaphore") || isFuture(cls)
                || ClientLibraries.awaitsReply(cls) || isBoundedQueue(cls) || RunBlocking.isBlocker(cls);
    }


    /**
     * A bounded queue whose {@code put} waited for room (the agent's park tracer commits those with
     * the queue as the parked-on class): producers waiting for a slower consumer.
     */
    public static boolean isBoundedQueue(String cls) {
        return cls.equals("java.util.concurrent.ArrayBlockingQueue") || cls.equals("java.util.concurrent.LinkedBlockingQueue");
    }

    /**
     * A thread waiting for a task's result ({@code Future.get}, {@code CompletableFuture.join}): a
     * hand-off wait. Only callers of get or join park on these, never a pool's idle workers. A service
     * whose requests waited 140 ms of their 171 for 4 tasks queued behind 2 pool threads showed
     * "no root cause" while these parks were left out.
     */
    private static boolean isFuture(String cls) {
        return cls.equals("java.util.concurrent.FutureTask") || cls.equals("java.util.concurrent.CompletableFuture$Signaller");
    }

    private Group group(String cls, String kind) {
        return groups.computeIfAbsent(kind + "|" + cls, k -> new Group(cls, kind));
    }

    /** Counts {@code owner} (null when JFR does not know it) as the holder during the waiter's interval. */
    private static void owner(Group g, RecordedThread owner, RecordedEvent e) {
        if (owner == null) return;
        g.owners.computeIfAbsent(owner.getJavaThreadId(), k -> new long[1])[0]++;
        g.ownerNames.put(owner.getJavaThreadId(), owner.getJavaName());
        if (g.intervals.size() < MAX_INTERVALS) {
            g.intervals.add(new long[] {owner.getJavaThreadId(), us(e.getStartTime()), us(e.getEndTime())});
        }
    }

    private static void record(Group g, RecordedEvent e, List<String> stack) {
        g.events++;
        // A wait on an event loop's thread stalls every connection that loop serves (event-loop-blocking reads it).
        if (EventCollector.onEventLoop(e) && !inSelector(stack)) g.eventLoop++;
        g.blockedMs += EventCollector.ms(EventCollector.waited(e));
        g.waiters.add(stack);
    }

    private static long us(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }

    @Override
    public List<Table> tables(Observation o) {
        List<Group> sorted = new ArrayList<>(groups.values());
        sorted.sort((a, b) -> Double.compare(b.blockedMs, a.blockedMs));
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Group g : sorted) {
            Long owner = topOwner(g);
            rows.add(row(g.lockClass, g.kind, g.events, g.blockedMs, owner == null ? null : g.ownerNames.get(owner),
                    owner == null ? null : ownerStack(g, owner), g.waiters.top(), g.eventLoop));
        }
        return List.of(new Table("locks", COLUMNS, rows, o.meta()));
    }

    /** The columns of table {@code locks}, and of the agent's {@code vthread-locks}, which virtual threads' waits fill. */
    public static final List<String> COLUMNS = List.of("lockClass", "kind", "events", "blockedMs", "ownerThread", "ownerStack",
            "waiterStack", "eventLoop");

    /** One row of {@link #COLUMNS}; owner fields null when unknown. */
    public static Map<String, Object> row(String lockClass, String kind, long events, double blockedMs, String ownerThread,
            List<String> ownerStack, List<String> waiterStack, long eventLoop) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("lockClass", lockClass);
        r.put("kind", kind);
        r.put("events", events);
        r.put("blockedMs", blockedMs);
        r.put("ownerThread", ownerThread);
        r.put("ownerStack", ownerStack);
        r.put("waiterStack", waiterStack);
        r.put("eventLoop", eventLoop);
        return r;
    }

    private static Long topOwner(Group g) {
        Long best = null;
        long n = 0;
        for (Map.Entry<Long, long[]> e : g.owners.entrySet()) {
            if (e.getValue()[0] > n) {
                n = e.getValue()[0];
                best = e.getKey();
            }
        }
        return best;
    }

    /** The owner's most frequent stack while waiters were blocked on it (see the class comment). */
    private List<String> ownerStack(Group g, long owner) {
        StackCounter c = new StackCounter();
        for (long[] iv : g.intervals) {
            if (iv[0] != owner) continue;
            for (Activity a : activity.getOrDefault(iv[0], List.of())) {
                if (a.startUs <= iv[2] && a.endUs >= iv[1]) c.add(a.stack);
            }
        }
        return c.top();
    }
}
