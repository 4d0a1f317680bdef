package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.List;
import java.util.Optional;

/**
 * Lock contention, monitors and parks alike, weighed by the share of request time threads spent
 * blocked. The culprit is the first non-JDK frame of the owner's stack (who holds the lock),
 * else of the waiters' (who keeps asking for it): CASES.md #5's timer lock was found that way.
 */
public final class LockContentionRule implements Rule {
    /** A tenth of request time blocked on one lock caps throughput visibly. */
    static final double SHARE_WARN = 0.1;
    /** A third: the lock, not the work, sets the service's speed. */
    static final double SHARE_CRITICAL = 0.3;
    /** Without request timings: one thread blocked on average, all the time. */
    static final double BLOCKED_THREADS_WARN = 1;
    static final double BLOCKED_THREADS_CRITICAL = 4;
    /** A second lock worth naming: a hundredth of request time. */
    static final double SECOND_LOCK_SHARE = 0.01;
    /**
     * Synchronizers a thread parks on to wait for another thread's work, not to enter a critical
     * section: the wait is the hand-off (a pool executing the task), named as such.
     */
    private static final String[] HAND_OFF = {
        "CountDownLatch", "FutureTask", "CompletableFuture", "SynchronousQueue", "Phaser", "CyclicBarrier", "Exchanger"
    };

    @Override public String id() { return "lock-contention"; }

    /**
     * True when the most-blocked lock is held or awaited inside class or resource lookup: then the
     * lookups on the request path (hot-path-classloading) are the cause and the lock their effect.
     */
    public static boolean topLockInLookup(Evidence ev) {
        Optional<Table> locks = ev.table("locks");
        if (locks.isEmpty() || locks.get().isEmpty()) return false;
        int top = topRow(locks.get());
        return top >= 0 && inLookup(locks.get(), top);
    }

    private static boolean inLookup(Table t, int row) {
        return Frames.inLookup(Evidence.stack(t, row, "ownerStack")) || Frames.inLookup(Evidence.stack(t, row, "waiterStack"));
    }
    @Override public String title() { return "Threads contend on a lock"; }

    /**
     * A third of the hand-off's blocked time spent by the tasks in one I/O wait: that wait is the
     * bulk of what the requests wait for (the rest is queueing and the hand-off itself).
     */
    static final double TASK_WAIT_SHARE = 1.0 / 3;

    /** A token fetched at least this often per call of another HTTP target: one for each call it authorizes. */
    static final double TOKEN_PER_CALL = 0.8;
    /** Resilience4j's bulkhead classes: a semaphore bulkhead's waiters park in them. */
    static final String R4J_BULKHEAD = "io.github.resilience4j.bulkhead.";

    /** A bounded queue whose put waited for room: recorded with the queue as what was parked on. */
    static boolean isBoundedQueue(String lockClass) {
        return "java.util.concurrent.ArrayBlockingQueue".equals(lockClass) || "java.util.concurrent.LinkedBlockingQueue".equals(lockClass);
    }

    static final String QUEUE_EXPLANATION = "Producers wait in put() for room in a bounded queue that stays full:"
            + " whatever takes from it (a worker thread, an async appender's writer, a consumer) takes less than they put,"
            + " so each producer runs at the consumer's pace. The queue's size only sets how long that takes to show.";
    static final String QUEUE_FIX = "Make the consumer keep up (more consumers, a faster output, batches), put less, or"
            + " stop waiting for room: offer() with a short timeout, dropping or rejecting what does not fit (logback's"
            + " AsyncAppender: neverBlock=\"true\"). A bigger queue only postpones the wait.";

    /** Nearly every request failed and nearly all request time went to waiting: no permit came back. */
    static final double LEAKED_FAILED = 0.95;
    static final double LEAKED_BLOCKED = 0.9;
    static final String LEAKED_EXPLANATION = "A Semaphore counts permits, not owners: a permit acquired and not released"
            + " is gone for good. When the release is skipped on some path (an exception thrown between acquire and"
            + " release, an early return), each such request takes one permit with it, and once the last is gone every"
            + " request waits its full timeout and fails, while the CPU idles and nothing holds the permits.";
    static final String LEAKED_FIX = "Release in a finally block right after a successful acquire (if (sem.tryAcquire(...))"
            + " { try { ... } finally { sem.release(); } }), so that every path gives the permit back; a bulkhead library"
            + " (Resilience4j) does this for you. Report availablePermits() in a metric or health check to see a leak"
            + " before the last permit goes; the running service needs a restart to get its permits back.";
    static final String FAIR_EXPLANATION = "A fair lock is taken in arrival order: each release hands it to the longest"
            + " waiter, and no thread may take it until that one has been woken and scheduled. With a short critical section"
            + " the threads spend longer waking each other than holding the lock: the CPU goes to parking and unparking, a"
            + " context switch per hand-over, and throughput falls as concurrency rises.";
    static final String FAIR_FIX = "Make the lock unfair (new ReentrantLock(), the default; new ReentrantReadWriteLock()):"
            + " a thread that finds it free takes it at once instead of waiting for a parked one to wake. Keep fairness only"
            + " where a thread was seen to starve; then hold the lock for less, or split the state so requests need different"
            + " locks (a ConcurrentHashMap, a LongAdder, one lock per key).";

    /** The JDK's frames that park a thread or wake one: the cost of handing a lock over. */
    static boolean handsOver(String frame) {
        return frame.startsWith("jdk.internal.misc.Unsafe.unpark") || frame.startsWith("jdk.internal.misc.Unsafe.park")
                || frame.startsWith("java.util.concurrent.locks.LockSupport.");
    }

    static boolean isHandOff(String lockClass) {
        if (lockClass == null) return false;
        for (String h : HAND_OFF) if (lockClass.contains(h)) return true;
        return false;
    }

    // The runner-up lock, when it costs something too: a hand-off often hides the pool's own lock.
    private static String second(Table t, int top, double requestMs, Numbers n, String ref) {
        int next = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (i != top && counted(t, i) && (next < 0 || t.number(i, "blockedMs") > t.number(next, "blockedMs"))) next = i;
        }
        if (next < 0 || !(requestMs > 0) || !(t.number(next, "blockedMs") / requestMs >= SECOND_LOCK_SHARE)) return "";
        String at = Frames.callPath(Evidence.stack(t, next, "waiterStack"), 2);
        return "; next " + t.text(next, "lockClass") + " (" + n.tag(Fmt.ms(t.number(next, "blockedMs")), ref + "#" + next)
                + (at.isEmpty() ? "" : ", waiters at " + at) + ")";
    }

    /**
     * The most-blocked lock's class when it is taken inside library code that {@code frame} matches,
     * between the lock and the application's own frame (owner's stack, else the waiters'): then
     * whatever runs that code per request is the cause, the lock its effect. Null otherwise.
     */
    public static String topLockTakenIn(Evidence ev, java.util.function.Predicate<String> frame) {
        Optional<Table> locks = ev.table("locks");
        if (locks.isEmpty() || locks.get().isEmpty()) return null;
        Table t = locks.get();
        int top = topRow(t);
        if (top < 0) return null;
        for (String column : new String[] {"ownerStack", "waiterStack"}) {
            for (String f : Evidence.stack(t, top, column)) {
                if (Frames.isApplication(f)) break;
                if (frame.test(f)) return t.text(top, "lockClass");
            }
        }
        return null;
    }

    private static int topRow(Table t) {
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!counted(t, i)) continue;
            if (top < 0 || t.number(i, "blockedMs") > t.number(top, "blockedMs")) top = i;
        }
        return top;
    }

    /**
     * Whether a row is contention this rule weighs: not an event loop's selector handshake, not a
     * request waiting for a remote reply its client's I/O thread reads ({@link ReplyWait}: request-waits'),
     * not a pool's idle thread waiting for work (case files from before the collector dropped them), and not a
     * thread in Kotlin's runBlocking waiting for its own coroutine (event-loop-blocking's, on a loop).
     */
    static boolean counted(Table t, int row) {
        return !eventLoop(t, row) && !ReplyWait.isReply(t, row) && !insideProbedCall(t, row)
                && !io.culprit.model.RunBlocking.KIND.equals(Evidence.text(t, row, "kind"))
                && !io.culprit.model.IdleWaits.idleWorker(Evidence.stack(t, row, "waiterStack"));
    }

    /**
     * A park inside a client whose calls the probes time is that call's own wait, already in the
     * calls table (the collector drops these since; older case files keep them): Quarkus' blocking
     * Redis API awaits each reply on a latch, which a blind service (session 44) making 150 GETs a
     * request read as "69 % of request time blocked on work handed to other threads".
     */
    private static boolean insideProbedCall(Table t, int row) {
        return io.culprit.model.ClientLibraries.insideProbedCall(Evidence.stack(t, row, "waiterStack"));
    }

    /**
     * A selector thread blocked inside the JDK's selector (select() against a worker's wakeup()):
     * the event loop's own handshake, which no request waits for.
     */
    static boolean eventLoop(Table t, int row) {
        List<String> waiter = Evidence.stack(t, row, "waiterStack");
        return !waiter.isEmpty() && waiter.get(0).startsWith("sun.nio.ch.") && waiter.get(0).contains("Selector");
    }

    /**
     * The table to read: JFR's {@code locks}, or {@code vthread-locks} when that holds more blocked
     * time. From JDK 24 a virtual thread blocked entering a monitor unmounts and JFR records nothing
     * of it; the agent samples such waits from the JVM's thread dumps while the container runs
     * requests on virtual threads.
     */
    static String lockTable(Evidence ev) {
        Optional<Table> virtual = ev.rows("vthread-locks");
        if (virtual.isEmpty()) return "locks";
        Optional<Table> jfr = ev.rows("locks");
        return jfr.isPresent() && blockedMs(jfr.get()) >= blockedMs(virtual.get()) ? "locks" : "vthread-locks";
    }

    /**
     * " The thread dumps … stopped early (why) …" when the agent's sampling of virtual threads'
     * monitor waits ended before the run did (a dump too slow, or one that failed), else "": the
     * waits it counted cover only part of the run, and a reader must not take the rest for none.
     */
    static String dumpsStopped(Evidence ev) {
        Object why = ev.table("vthread-locks").map(v -> v.meta().get(SAMPLING_STOPPED)).orElse(null);
        return why == null ? "" : " The thread dumps that count virtual threads' monitor waits stopped early (" + why
                + "): those waits are counted only up to then.";
    }

    /** The meta key of {@code vthread-locks} that says why the agent stopped its thread dumps early. */
    public static final String SAMPLING_STOPPED = "samplingStopped";

    private static double blockedMs(Table t) {
        double ms = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            if (Double.isFinite(t.number(i, "blockedMs")) && counted(t, i)) ms += t.number(i, "blockedMs");
        }
        return ms;
    }

    @Override
    public Finding evaluate(Evidence ev) {
        String name = lockTable(ev);
        boolean virtual = name.equals("vthread-locks");
        String ref = "tables/" + name;
        Optional<Table> locks = ev.table(name);
        if (locks.isEmpty()) return notAssessed("no table locks");
        Table t = locks.get();
        if (t.isEmpty()) return finding(Severity.OK).evidence(ref).summary("no lock contention recorded." + dumpsStopped(ev)).build();
        int top = topRow(t);
        if (top < 0) return finding(Severity.OK).evidence(ref).summary(ReplyWait.top(t) >= 0
                ? "no lock contended: requests waited for remote replies (request-waits weighs them)."
                : "only the event loop's selector handshake blocked.").build();
        double blocked = blockedMs(t);
        double requestMs = ev.requestTimeMs();
        // Blocked time of requests in flight at the edges of the run counts too: cap at all of it.
        double share = requestMs > 0 ? Math.min(1, blocked / requestMs) : Double.NaN;
        double threads = blocked / (ev.observedSeconds() * 1000);
        Severity sev = Double.isFinite(share)
                ? share >= SHARE_CRITICAL ? Severity.CRITICAL : share >= SHARE_WARN ? Severity.WARN : Severity.OK
                : threads >= BLOCKED_THREADS_CRITICAL ? Severity.CRITICAL : threads >= BLOCKED_THREADS_WARN ? Severity.WARN : Severity.OK;
        String lock = t.text(top, "lockClass");
        String kind = Evidence.text(t, top, "kind");
        List<String> owner = Evidence.stack(t, top, "ownerStack");
        List<String> waiter = Evidence.stack(t, top, "waiterStack");
        List<String> stack = owner.isEmpty() ? waiter : owner;
        // An EJB container's own lock around a session bean (a @Singleton's WRITE lock, a @Stateful instance's).
        EjbLock ejb = EjbLock.of(waiter);
        int ejbCall = ejb == null || ejb.beanClass() == null ? -1 : costliest(ev, (c, i) -> !"sql".equals(c.text(i, "kind"))
                && (Evidence.text(c, i, "caller").startsWith(ejb.beanClass() + ".") || Evidence.text(c, i, "callPath").contains(ejb.beanClass() + ".")));
        // A class loader's lock is a consequence of whoever loads classes per request: name that caller.
        boolean lookup = inLookup(t, top);
        String culprit = lookup ? Frames.firstCaller(stack) : Frames.firstNonJdk(stack);
        String ownerThread = Evidence.text(t, top, "ownerThread");
        // Waiters inside a connection pool's getConnection wait for a pooled connection, whatever the
        // pool parks or waits on (Tomcat's parks on a latch per waiter, like a hand-off).
        boolean checkout = inPoolCheckout(waiter);
        boolean handOff = isHandOff(lock) && !checkout;
        // A bounded queue's put that waited for room (the agent's park tracer): producers behind a slower consumer.
        boolean queueFull = isBoundedQueue(lock);
        boolean waitNotify = "wait".equals(kind);
        // The pool the hand-off queues on, when all its threads were busy: the common pool first, as
        // a CompletableFuture's default, then the application's executors.
        FullPool pool = !handOff ? null : FullPool.COMMON.full(ev) ? FullPool.COMMON : FullPool.EXECUTORS.full(ev) ? FullPool.EXECUTORS : null;
        // The tasks' own wait, when it is what the requests wait for: row 0 of this table, else null.
        Table tasks = handOff ? taskWaitBehind(ev, blocked) : null;
        boolean taskWait = tasks != null;
        String taskSite = taskWait ? tasks.text(0, "site") : null;
        // A hand-off to a pool with room whose tasks make dependency calls: the requests wait for the
        // dependency, called in parallel, which is what the hand-off is for.
        int handed = handOff && pool == null && !taskWait ? handedCall(ev, culprit) : -1;
        if (handed >= 0 && sev.compareTo(Severity.INFO) > 0) sev = Severity.INFO;
        // ... or for a call that runs only a few at a time: the tasks queue for its slots (capped-calls).
        CappedCallsRule.Cap capped = handOff && pool == null && !taskWait && handed < 0 ? CappedCallsRule.find(ev) : null;
        if (capped != null && sev.compareTo(Severity.INFO) > 0) sev = Severity.INFO;
        String path = Frames.callPath(waiter, 3);
        // No pool full in most windows: the executor whose builder the waiters call through, if it was busy in half of them.
        Optional<FullExecutor> handedTo = handOff && pool == null ? FullExecutor.handedTo(ev, path) : Optional.empty();
        // A semaphore has no owner to name: its permits are held across whatever the holders do next.
        boolean permits = !handOff && !checkout && lock != null && lock.contains("Semaphore");
        int held = permits ? heldCall(ev, culprit) : -1;
        // Resilience4j's semaphore bulkhead around an annotated method: its waiters' stacks are cut inside the aspect's
        // frames, before the application's; what it guards is most often the service's costliest remote call.
        boolean r4jBulkhead = permits && culprit != null && culprit.startsWith(R4J_BULKHEAD);
        if (held < 0 && r4jBulkhead) held = costliest(ev, (c, i) -> "http".equals(c.text(i, "kind")));
        // Permits nobody gives back: nearly all request time waiting for one, nearly every request failed,
        // and no holder's call to be seen. A release skipped on an exception path drains a semaphore.
        double failed = permits && held < 0 ? RequestErrorsRule.failedShare(ev) : Double.NaN;
        boolean leaked = failed >= LEAKED_FAILED && share >= LEAKED_BLOCKED;
        Numbers n = new Numbers();
        // A service at its CPU capacity keeps its queue at the pool: no statement holds the connections.
        String cpuBound = checkout ? CpuBoundPool.clause(ev, n) : null;
        if (cpuBound != null && sev.compareTo(Severity.INFO) > 0) sev = Severity.INFO;
        // What the pool's connections are busy with: the statement with the most time.
        int busyWith = checkout && cpuBound == null ? costliestSql(ev) : -1;
        // A monitor's owner in a timed dependency call: the call the lock is held across.
        int ownerCall = !permits && !handOff && !checkout && !lookup && !owner.isEmpty() ? heldCall(ev, culprit) : -1;
        // An owner deep in a client, its stack cut before the application's frames: the call the waiters' own method makes.
        boolean viaWaiter = false;
        if (ownerCall < 0 && !permits && !handOff && !checkout && !lookup && !owner.isEmpty()
                && culprit != null && io.culprit.model.ClientLibraries.isClient(culprit)) {
            ownerCall = heldCall(ev, Frames.firstApplication(waiter));
            viaWaiter = ownerCall >= 0;
        }
        // A map bin's lock: held while the map runs the caller's function.
        String mapCall = handOff || permits ? null : MapBinLock.call(lock, waiter);
        // A monitor's owner busy in one call of its own (an fsync, a regex): the work the lock queues requests for.
        HeldWork.Work work = ownerCall < 0 && mapCall == null && !permits && !handOff && !checkout && !lookup && !queueFull
                && !waitNotify && !owner.isEmpty() ? HeldWork.of(ev, culprit) : null;
        // Waiters for a read lock wait for a writer alone: the guarded call is then another method's.
        boolean readLock = readers(waiter);
        // A parked lock records no owner: a slow call the locking class makes is the likely critical section.
        int guarded = ejb == null && owner.isEmpty() && mapCall == null && !permits && !handOff && !checkout && !lookup && !queueFull && !waitNotify
                ? guardedCall(ev, culprit, readLock) : -1;
        // A fair lock hands itself to the longest waiter, which must wake first: the CPU goes to the hand-overs.
        boolean fair = ejb == null && !permits && lock != null && lock.endsWith("$FairSync");
        double handOver = fair ? ev.cpuShare(LockContentionRule::handsOver) : Double.NaN;
        if (fair && handOver >= SHARE_CRITICAL) sev = Severity.CRITICAL;
        else if (fair && handOver >= SHARE_WARN && sev.compareTo(Severity.WARN) < 0) sev = Severity.WARN;
        String weight = (virtual ? "virtual threads spent about " : "threads spent ") + n.tag(Fmt.ms(blocked), ref) + " blocked"
                + (Double.isFinite(share) ? " (" + n.tag(Fmt.pct(share), ref) + " of request time)"
                : " (" + n.tag(Fmt.num(threads), ref) + " threads blocked on average)");
        Finding.Builder b = finding(sev).evidence(ref + "#" + top);
        if (sev == Severity.OK) return b.summary(weight + "; top lock " + lock + "." + dumpsStopped(ev)).numbers(n.refs()).build();
        // Waits that queue for a capped call are that cap's, not the other way round.
        if (capped == null) b.explains("capped-calls");
        // Requests parked on work handed to a pool that was full: the pool is the problem, not a lock.
        if (handOff && !taskWait && (pool != null || handedTo.isPresent())) b.title("Requests wait for a full pool they hand work to");
        // When the tasks' own wait is what the requests wait for, the fix goes where the tasks wait.
        return b.score(Double.isFinite(share) ? share : Math.min(1, threads / 10))
                .culprit(ejb != null ? ejb.culprit(culprit) : taskWait ? taskSite : busyWith >= 0 ? ev.rows("calls").orElseThrow().text(busyWith, "target")
                        : guarded >= 0 && readLock ? Evidence.text(ev.rows("calls").orElseThrow(), guarded, "caller")
                        : viaWaiter ? Evidence.text(ev.rows("calls").orElseThrow(), ownerCall, "caller")
                        : r4jBulkhead && held >= 0 ? Evidence.text(ev.rows("calls").orElseThrow(), held, "caller") : culprit)
                .summary(weight + " on " + lock + " (" + kind + ", " + n.tag(Fmt.num(t.number(top, "events")), ref + "#" + top)
                        + (virtual ? " blocked threads in thread dumps a second apart" : " events") + ")"
                        + (handOff ? ", waiting for work handed to other threads" : "")
                        + (queueFull ? ", waiting in put() for room in the full bounded queue" : "")
                        + (checkout ? ", waiting for a pooled database connection" : "")
                        + (!owner.isEmpty() && culprit != null ? ", held at " + culprit + (ownerThread.isEmpty() ? "" : " by " + ownerThread) : "")
                        + (path.isEmpty() ? "" : ", waiters at " + path)
                        + (lookup ? "; the lock is taken inside class or resource lookup" : "")
                        + (ejb != null ? ejb.clause(ev, ejbCall, n) : "")
                        + second(t, top, requestMs, n, ref) + (pool == null ? "" : pool.describe(ev, n))
                        + handedTo.map(e -> e.handedClause(n)).orElse("")
                        + (taskWait ? taskWait(tasks, n) : "") + (handed >= 0 ? handedClause(ev, handed, culprit, n) : "")
                        + (capped != null ? "; the calls handed off run only " + capped.slots() + " at a time, and the requests"
                        + " queue for them (capped-calls)" : "")
                        + (held >= 0 ? permitHolders(ev, held, n) : "")
                        + (leaked ? "; " + n.tag(Fmt.pct(failed), "series/requests#errors") + " of the requests failed and no holder"
                        + " was seen at work: the permits were taken and never given back" : "")
                        + (busyWith >= 0 ? connectionHolders(ev, busyWith, n) : "")
                        + (cpuBound != null ? "; " + cpuBound : "")
                        + (ownerCall >= 0 && mapCall == null ? heldAcross(ev, ownerCall, n) : "")
                        + (work != null ? HeldWork.clause(work, n) : "")
                        + (guarded >= 0 ? guardedClause(ev, guarded, culprit, readLock, n) : "")
                        + (fair ? "; it is a fair lock, handed to the longest waiter at each release" + (handOver >= SHARE_WARN
                        ? ", and " + n.tag(Fmt.pct(handOver), ev.cpuRef()) + " of CPU samples park and wake threads to hand it over" : "") : "")
                        + (mapCall != null ? "; it is the lock of a key's bin, held while " + mapCall + " runs its function"
                        + MapBinLock.likelyHeld(ev, culprit, n) : "") + "." + dumpsStopped(ev))
                .numbers(n.refs())
                .explains("tail-latency").explains("request-errors").explains("thread-oversubscription")
                .explanation(ejb != null ? ejb.explanation() : cpuBound != null ? CpuBoundPool.EXPLANATION
                        : checkout
                        ? "Every connection of the pool is in use and requests queue for the next one returned: the pool"
                        + " serves rate × time each request holds a connection (Little's Law), and the requests past that"
                        + " wait. The statement the connections are busy with sets how long each is held."
                        : queueFull ? QUEUE_EXPLANATION
                        : handOff
                        ? "Request threads hand work to another pool and park until it is done: each request pays the"
                        + " queueing and the hand-off on top of the work, and the pool's own locks and timers add to it."
                        + " The waiters' path shows which call hands off."
                        : leaked ? LEAKED_EXPLANATION
                        : permits
                        ? "Requests wait for a permit of a Semaphore, which caps how many of them run the code it guards"
                        + " at once: the wait grows with concurrency while the CPUs stay partly idle. A semaphore has no"
                        + " owner to name; the permits are held across what their holders do next."
                        : fair ? FAIR_EXPLANATION
                        : mapCall != null ? MapBinLock.EXPLANATION
                        : waitNotify
                        ? "Requests wait in Object.wait on this object until another thread notifies them: a hand-made"
                        + " pool or queue whose resources are all taken. The notifier (named as the holder) gave one back;"
                        + " its stack shows what the resource was held across."
                        : "Every request that needs this lock waits for the one holding it; the wait grows with"
                        + " concurrency while the CPU stays partly idle. The owner's stack shows the code holding it."
                        + (virtual ? " A virtual thread blocked on a monitor gives its carrier back (JDK 24+) but keeps its"
                        + " place in the queue, and JFR records none of these waits: culprit counted the blocked threads"
                        + " in the JVM's thread dumps, once a second." : ""))
                .fix(ejb != null ? ejb.fix() : taskWait ? "The requests wait for tasks that wait in turn on " + what(tasks) + ": make that"
                        + " wait shorter or rarer (cache its answers, batch, a faster dependency, a timeout); the hand-off"
                        + " only moves it to another thread." + (pool != null ? " " + pool.fix(ev) : "")
                        : pool != null ? pool.fix(ev)
                        : handedTo.isPresent() ? FullPool.EXECUTORS.cure + handedTo.get().handedFix()
                        : cpuBound != null ? CpuBoundPool.FIX
                        : queueFull ? QUEUE_FIX
                        : checkout
                        ? statementFix(ev, busyWith)
                        + "Hold a connection only around its statements (no remote call or computation inside the"
                        + " transaction), then size the pool to rate × hold time by Little's Law, no larger than the database serves."
                        : leaked ? LEAKED_FIX
                        : permits
                        ? "The semaphore is a bulkhead that queues: requests wait for a permit while its holders work."
                        + " Give it the permits the wanted rate needs (rate × time held, by Little's Law), or bound the"
                        + " wait (tryAcquire with a short timeout) and reject what gets no permit (429) instead of"
                        + " queueing request threads; keep the limit as low as what it protects needs, no lower."
                        + (r4jBulkhead ? " It is Resilience4j's semaphore bulkhead: resilience4j.bulkhead.instances.<name>."
                        + "max-concurrent-calls sets the permits (25 by default) and max-wait-duration how long a call waits for"
                        + " one (0 by default: rejected at once)." : "")
                        : handOff
                        // A hand-off has no lock to shorten: the cure is not handing off what need not be.
                        ? "Run work that neither blocks nor calls out on the request thread instead of handing it to"
                        + " a pool (Hystrix: execution.isolation.strategy=SEMAPHORE, or no command at all for local"
                        + " reads; Resilience4j: a semaphore Bulkhead, not a ThreadPoolBulkhead); keep thread-pool"
                        + " isolation for remote calls, with the pool sized to rate × latency."
                        + (lock.contains("CompletableFuture") ? " CompletableFuture.supplyAsync and runAsync without an"
                        + " executor run on ForkJoinPool.commonPool, or on a new thread per task where that pool has"
                        + " fewer than two threads (two CPUs or fewer): pass them an executor of their own." : "")
                        : fair ? FAIR_FIX
                        : mapCall != null ? MapBinLock.FIX
                        : work != null ? HeldWork.fix(work)
                        : guarded >= 0 ? GUARDED_FIX
                        : waitNotify
                        ? "Size the pool for its demand (rate × hold time, by Little's Law) or hold each resource for less"
                        + " (not across remote calls); a hand-made wait/notify pool is better replaced by a maintained one"
                        + " (HikariCP, commons-pool2) with a checkout timeout."
                        : ownerCall >= 0 && mapCall == null ? heldCallFix(ev, ownerCall)
                        : "Take the lock off the per-request path (do the work once, cache it, or use a lock-free"
                        + " structure), or shrink the critical section to the shared state only."
                        + (virtual ? " However many virtual threads there are, a slow call inside the block serializes"
                        + " every request: make the call outside it and publish the result (a volatile field, an"
                        + " AtomicReference)." : ""))
                // thread -b names a lock's holder; a hand-off has none: the call paths into the wait show who hands off.
                .confirm(taskWait && Frames.classAndMethod(taskSite) != null ? ev.confirm("trace " + Frames.classAndMethod(taskSite) + " -n 5")
                        : checkout ? ev.confirm("calls")
                        : handOff || permits ? handOffConfirm(ev, culprit) : waitNotify ? handOffConfirm(ev, Frames.firstNonJdk(waiter))
                        : virtual ? "jcmd " + ev.pid() + " Thread.dump_to_file -format=json threads.json (virtual threads"
                        + " in state BLOCKED, blockedOn " + lock + ")"
                        : ev.confirm("thread -b") + " or \"profiler start --event lock\"")
                .build();
    }

    /**
     * Whether a waiter's stack is inside a {@code getConnection} outside the JDK: a pool's checkout
     * (HikariCP, DBCP2, Tomcat's pool, c3p0, Druid, UCP, or Spring's DataSourceUtils above any of
     * them), whatever the pool blocks on. The JDK's own (DriverManager) opens a connection instead,
     * and Spring Data Redis's {@code RedisConnectionFactory.getConnection} lends a Redis client.
     */
    static boolean inPoolCheckout(List<String> waiter) {
        for (String f : waiter) {
            if (Frames.isJdk(f) || f.contains(".redis.") || f.startsWith("redis.") || f.startsWith("io.lettuce.")) continue;
            if (Frames.stripLine(f).endsWith(".getConnection")) return true;
        }
        return false;
    }

    /** The cure for the statement the pool's connections are busy with (row {@code row} of calls, or -1), and a space. */
    static String statementFix(Evidence ev, int row) {
        if (row < 0) return "";
        String shaped = CallShape.fix("sql", ev.rows("calls").orElseThrow().text(row, "target"), ev.database());
        return (shaped != null ? shaped : "Make the statement the connections are busy with cheaper (its plan, an index, a smaller result).") + " ";
    }

    /** The {@code sql} row of {@code calls} with the most total time, or -1. */
    static int costliestSql(Evidence ev) {
        return costliest(ev, (t, i) -> "sql".equals(t.text(i, "kind")));
    }

    /** The call that the code taking the permits makes most time in (calls table row), or -1. */
    private static int heldCall(Evidence ev, String culprit) {
        if (culprit == null) return -1;
        String method = Frames.stripLine(culprit);
        return costliestCall(ev, caller -> Frames.stripLine(caller).equals(method));
    }

    /** Handed-off calls that fill half of the requests' time are what the requests wait for. */
    static final double HANDED_CALL_SHARE = 0.5;

    /**
     * The costliest dependency call made off the waiting method's path (by the tasks handed off)
     * when it fills {@link #HANDED_CALL_SHARE} of request time; -1 otherwise. A service outside the
     * lab fetched three quotes per request in parallel on an executor of 48 threads; its requests'
     * park on the CompletableFuture read lock-contention CRITICAL, with the cure "do not hand off".
     * Or an asynchronous call made at the waiting line itself (its caller is the waiter's frame,
     * line and all), whose future the waiter joins: a call timed synchronously would have parked
     * inside its client, where the lock table does not count it. A Micronaut service that joined
     * its declarative client's CompletableFuture read "work handed to other threads", 94 %.
     */
    /**
     * The application frame where requests wait for work handed to other threads (the top hand-off
     * row's waiter), or null: the code that made the calls a capped client runs on its own threads.
     */
    static String handOffWaiter(Evidence ev) {
        Optional<Table> locks = ev.rows(lockTable(ev));
        if (locks.isEmpty()) return null;
        Table t = locks.get();
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!counted(t, i) || !isHandOff(t.text(i, "lockClass"))) continue;
            if (top < 0 || t.number(i, "blockedMs") > t.number(top, "blockedMs")) top = i;
        }
        if (top < 0) return null;
        for (String f : Evidence.stack(t, top, "waiterStack")) if (Frames.isApplication(f)) return f;
        return null;
    }

    private static int handedCall(Evidence ev, String culprit) {
        if (culprit == null) return -1;
        int joined = costliest(ev, (t, i) -> culprit.equals(Evidence.text(t, i, "caller")) && !"dns".equals(t.text(i, "kind")));
        if (joined >= 0 && ev.rows("calls").orElseThrow().number(joined, "shareOfRequestTime") >= HANDED_CALL_SHARE) return joined;
        String method = Frames.stripLine(culprit);
        int row = costliest(ev, (t, i) -> !Evidence.text(t, i, "callPath").contains(method) && !"dns".equals(t.text(i, "kind")));
        return row >= 0 && ev.rows("calls").orElseThrow().number(row, "shareOfRequestTime") >= HANDED_CALL_SHARE ? row : -1;
    }

    /** "; the tasks handed off make http "GET …" (3.0 per request, P99 30.2 ms, 100 % of request time): …". */
    private static String handedClause(Evidence ev, int row, String waiter, Numbers n) {
        Table t = ev.rows("calls").orElseThrow();
        String ref = "tables/calls#" + row;
        boolean joined = waiter != null && waiter.equals(Evidence.text(t, row, "caller"));
        return (joined ? "; the future waited for is the asynchronous " : "; the tasks handed off make ") + t.text(row, "kind")
                + " \"" + t.text(row, "target") + "\" ("
                + n.tag(Fmt.num(t.number(row, "perRequest")), ref) + " per request, P99 " + n.tag(Fmt.ms(t.number(row, "p99Ms")), ref)
                + ", " + n.tag(Fmt.pct(Math.min(1, t.number(row, "shareOfRequestTime"))), ref) + " of request time): the requests"
                + (joined ? " wait for that dependency's answer (slow-calls weighs the calls)"
                : " wait for that dependency, called in parallel, as the hand-off intends (slow-calls weighs the calls)");
    }

    /** A call takes the lock's holder a tenth of the run: long enough to be what the waiters wait for. */
    static final double GUARDED_WALL_SHARE = 0.1;

    /**
     * For a lock with no recorded owner (a ReentrantLock's parks): the costliest call made by the
     * class that takes the lock, when its calls fill at least {@link #GUARDED_WALL_SHARE} of the
     * run; -1 otherwise. A service outside the lab refreshed a token over HTTP inside a
     * ReentrantLock, and was told only to "take the lock off the per-request path".
     */
    private static int guardedCall(Evidence ev, String culprit, boolean readers) {
        String cls = classOf(culprit);
        if (cls == null || !Frames.isApplication(culprit)) return -1;
        // Readers do not exclude each other: what holds a reader is a writer, in another method of the class
        // (a price list read under the read lock, reloaded under the write lock: the readers' own statement is not it).
        String own = Frames.stripLine(culprit);
        int row = costliestCall(ev, caller -> cls.equals(classOf(caller)) && !(readers && own.equals(Frames.stripLine(caller))));
        double wallMs = ev.observedSeconds() * 1000;
        return row >= 0 && wallMs > 0 && ev.rows("calls").orElseThrow().number(row, "totalMs") >= GUARDED_WALL_SHARE * wallMs ? row : -1;
    }

    /** The class of a frame ({@code a.B.m:3} → {@code a.B}); null for null or a bare name. */
    private static String classOf(String frame) {
        if (frame == null) return null;
        String m = Frames.stripLine(frame);
        int dot = m.lastIndexOf('.');
        return dot > 0 ? m.substring(0, dot) : null;
    }

    /** "; no owner is recorded for a parked lock, but the same class makes http "GET …" (…): …". */
    private static String guardedClause(Evidence ev, int row, String culprit, boolean readers, Numbers n) {
        Table t = ev.rows("calls").orElseThrow();
        double wall = t.number(row, "totalMs") / (ev.observedSeconds() * 1000);
        return "; a parked lock records no owner, but the class that takes it, " + Frames.shortName(classOf(culprit))
                + ", makes " + call(ev, row, n) + " at " + Frames.stripLine(Evidence.text(t, row, "caller")) + ", in flight "
                + n.tag(Fmt.pct(wall), "tables/calls#" + row) + " of the run's time: "
                + (readers ? "the waiters want the read lock, which waits only for a writer; made with the write lock held,"
                + " each call stops every reader" : "made with the lock held, each call stops every waiter");
    }

    /** Waiters for a read lock ({@code ReentrantReadWriteLock}'s, {@code StampedLock}'s): they wait for a writer alone. */
    static boolean readers(List<String> waiter) {
        for (String f : waiter) {
            if (f.startsWith("java.util.concurrent.locks.ReentrantReadWriteLock$ReadLock.")
                    || f.startsWith("java.util.concurrent.locks.StampedLock.readLock")) return true;
            if (!f.startsWith("java.")) return false;
        }
        return false;
    }

    static final String GUARDED_FIX = "Do not hold the lock across the call: make it outside the lock and publish the result"
            + " (a volatile field, an AtomicReference, a compare-and-set), refresh ahead of expiry on a background thread, or let"
            + " one caller refresh while the others keep using the current value; hold the lock only to swap the shared state.";

    /** The {@code calls} row with the most total time among those whose caller {@code caller} accepts, or -1. */
    static int costliestCall(Evidence ev, java.util.function.Predicate<String> caller) {
        return costliestCall(ev, caller, null);
    }

    /** The same, leaving out calls of kind {@code exceptKind} (null: none left out). */
    static int costliestCall(Evidence ev, java.util.function.Predicate<String> caller, String exceptKind) {
        return costliest(ev, (t, i) -> caller.test(Evidence.text(t, i, "caller")) && !t.text(i, "kind").equals(exceptKind));
    }

    /** The {@code calls} row with the most total time among those {@code which} accepts, or -1. */
    static int costliest(Evidence ev, java.util.function.BiPredicate<Table, Integer> which) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return -1;
        Table t = calls.get();
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!which.test(t, i)) continue;
            if (best < 0 || t.number(i, "totalMs") > t.number(best, "totalMs")) best = i;
        }
        return best;
    }

    /**
     * The fix for a lock held across a dependency call: make the call outside it. A call that
     * fetches a token (its target names one) is most often a cached token refreshed on every call:
     * an expiry computed in the wrong unit (OAuth's {@code expires_in} is in seconds) or never
     * stored. A blind Feign service (session 47) refreshed its carrier token under the
     * interceptor's monitor for every call, and lock-contention named Apache HttpClient's socket
     * read, with the cure for a lock in one's own code.
     */
    static String heldCallFix(Evidence ev, int row) {
        Table t = ev.rows("calls").orElseThrow();
        String target = t.text(row, "target").toLowerCase(java.util.Locale.ROOT);
        double others = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            if (i != row && "http".equals(t.text(i, "kind"))) others = Math.max(others, t.number(i, "count"));
        }
        boolean everyCall = "http".equals(t.text(row, "kind")) && target.contains("token") && others > 0
                && t.number(row, "count") >= TOKEN_PER_CALL * others;
        return "Make the call outside the lock: held across a remote round trip, it makes every request queue for the"
                + " whole call. If the call fetches something reusable (a configuration, a lookup, a token), keep its result"
                + " until it expires and refresh it ahead of time, one thread at a time while the others use the current"
                + " one (a volatile field or AtomicReference read without the lock)."
                + (everyCall ? " Here a token is fetched for about every call it authorizes: a cached token that never"
                + " counts as valid; check how its expiry is computed (OAuth's expires_in is in seconds) and that it is stored." : "");
    }

    /** "; the lock is held across its holder's http "GET …" (N calls, X ms each)": what the owner does while others wait. */
    private static String heldAcross(Evidence ev, int row, Numbers n) {
        return "; the lock is held across its holder's " + call(ev, row, n);
    }

    /** Row {@code row} of {@code calls} as {@code http "GET …" (N calls, X ms each)}. */
    static String call(Evidence ev, int row, Numbers n) {
        Table t = ev.rows("calls").orElseThrow();
        String ref = "tables/calls#" + row;
        double count = t.number(row, "count");
        return t.text(row, "kind") + " " + SlowCallsRule.quote(t.text(row, "target"))
                + " (" + n.tag(Fmt.num(count), ref) + " calls, " + n.tag(Fmt.ms(t.number(row, "totalMs") / count), ref) + " each)";
    }

    /**
     * What the permits are held across, and how many were busy on average: by Little's Law the calls
     * in flight are their total time over the run's.
     */
    private static String permitHolders(Evidence ev, int row, Numbers n) {
        return holders(ev, row, n, "; the permit holders call ",
                " in flight on average (Little's Law): the permits, not the dependency, set the throughput");
    }

    /** "; the connections are busy with sql "…", X ms each, N running on average (Little's Law)". */
    static String connectionHolders(Evidence ev, int row, Numbers n) {
        return holders(ev, row, n, "; the connections are busy with ", " running on average (Little's Law)");
    }

    /** {@code lead} + row {@code row} of {@code calls} with its time each and, by Little's Law, the calls in flight + {@code tail}. */
    private static String holders(Evidence ev, int row, Numbers n, String lead, String tail) {
        Table t = ev.rows("calls").orElseThrow();
        String ref = "tables/calls#" + row;
        double count = t.number(row, "count"), total = t.number(row, "totalMs");
        double inFlight = ev.perSecond(t, row) * total / count / 1000;
        return lead + t.text(row, "kind") + " " + SlowCallsRule.quote(t.text(row, "target")) + ", "
                + n.tag(Fmt.ms(total / count), ref) + " each, " + n.tag(Fmt.num(inFlight), ref) + tail;
    }

    /**
     * Table {@code task-waits} (socket and file waits inside tasks a request can await) when its
     * top row makes up at least {@link #TASK_WAIT_SHARE} of the hand-off's blocked time, else null:
     * then the tasks' own wait is what the requests wait for.
     */
    private static Table taskWaitBehind(Evidence ev, double blockedMs) {
        Table tasks = ev.table("task-waits").orElse(null);
        return tasks != null && !tasks.isEmpty() && blockedMs > 0 && tasks.number(0, "waitMs") >= TASK_WAIT_SHARE * blockedMs
                ? tasks : null;
    }

    private static String what(Table t) {
        return (t.text(0, "kind").equals("socket") ? "the socket to " : "file I/O on ") + t.text(0, "target") + " at " + t.text(0, "site");
    }

    private static String taskWait(Table t, Numbers n) {
        String ref = "tables/task-waits#0";
        return "; the tasks handed off waited on " + what(t) + " (" + n.tag(Fmt.num(t.number(0, "events")), ref)
                + " waits, " + n.tag(Fmt.ms(t.number(0, "waitMs")), ref) + " in all, JFR's I/O events over 5 ms)";
    }

    /** A pool a hand-off's tasks queue on, read from series {@code pools}. */
    enum FullPool {
        COMMON("common", "ForkJoinPool.commonPool",
                "The hand-off runs on ForkJoinPool.commonPool (CompletableFuture.supplyAsync or runAsync without an"
                + " executor, parallel streams), which has few threads (cores − 1 by default), sized for computation: tasks that block"
                + " on I/O or locks there queue every caller behind a few threads. Pass CompletableFuture an executor"
                + " of its own with threads for its work (task rate × task time, by Little's Law), or make the call"
                + " on the request thread; keep the common pool for CPU-bound work."),
        EXECUTORS("executor", "the application's executors",
                "The pool the requests hand their tasks to is full, and the tasks queue: give it threads for"
                + " its work (task rate × task time, by Little's Law), or hand it fewer tasks (batch them, run"
                + " cheap ones on the request thread); a queue that keeps growing needs a bound and a rejection.");

        private final String column;
        private final String name;
        private final String cure;

        FullPool(String column, String name, String cure) {
            this.column = column;
            this.name = name;
            this.cure = cure;
        }

        /** The cure, and for the application's executors the setting that sizes the one that was full. */
        String fix(Evidence ev) {
            return this == EXECUTORS ? cure + FullExecutor.of(ev).map(FullExecutor::fix).orElse("") : cure;
        }

        /** Every thread busy in most windows: {@link ContainerQueueRule#FULL_SHARE}. */
        boolean full(Evidence ev) {
            return ev.fill("pools", column + "Active", column + "Max").map(f -> f.windows >= ContainerQueueRule.MIN_WINDOWS
                    && f.share() >= ContainerQueueRule.FULL_SHARE).orElse(false);
        }

        /** How full it was: a hand-off waits longest when its tasks queue behind a full pool. */
        String describe(Evidence ev, Numbers n) {
            Optional<Evidence.Fill> fill = ev.fill("pools", column + "Active", column + "Max");
            if (fill.isEmpty() || fill.get().windows == 0) return "";
            double queued = ev.stats("pools", column + "Queued").map(s -> s.mean()).orElse(Double.NaN);
            String ref = "series/pools#" + column;
            return "; " + name + " had all " + n.tag(Fmt.num(fill.get().capacity), ref + "Max") + " threads busy in "
                    + n.tag(Fmt.pct(fill.get().share()), ref + "Active") + " of " + fill.get().windows + " windows"
                    + (queued > 0 ? ", " + n.tag(Fmt.num(queued), ref + "Queued") + " tasks queued on average" : "")
                    + (this == EXECUTORS ? FullExecutor.of(ev).map(e -> e.clause(n)).orElse("") : "");
        }
    }

    /**
     * {@code stack} on the waiting frame ({@code rx...BlockingOperatorToFuture$2.get:101}): the call
     * paths that hand off, with counts.
     */
    static String handOffConfirm(Evidence ev, String waiterFrame) {
        String target = Frames.classAndMethod(waiterFrame);
        if (target == null) return ev.confirm("profiler start --event wall") + ", then \"profiler stop --format collapsed\"";
        return ev.confirm("stack " + target + " -n 40");
    }
}
