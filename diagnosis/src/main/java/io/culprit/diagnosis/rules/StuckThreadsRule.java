package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.List;
import java.util.Optional;

/**
 * Threads that never moved during the run ({@code stuck-threads}: the same wait, on the same
 * object, in a thread dump at the start and at the end), which no event shows because their
 * waits never end. Two shapes are causes of their own: a pool's workers waiting, inside their
 * tasks, for results of other tasks (submitted to the same pool, those queue behind the waiting
 * workers forever once every worker waits: a thread-starvation deadlock), and threads blocked on
 * a monitor for the whole run (a deadlock, or a lock never released). A service outside the lab
 * whose report endpoint split its work on its own pool of 4 timed out every request after the
 * first burst; the verdict named only the requests' wait for that pool.
 */
public final class StuckThreadsRule implements Rule {
    /** Frames that wait for another task's result. */
    private static final String[] RESULT_WAITS = {
        "java.util.concurrent.FutureTask.get", "java.util.concurrent.FutureTask.awaitDone", "java.util.concurrent.CompletableFuture.get",
        "java.util.concurrent.CompletableFuture.join", "java.util.concurrent.CompletableFuture.waitingGet",
        "java.util.concurrent.CompletableFuture.timedGet", "java.util.concurrent.CountDownLatch.await"
    };
    /** Frames that run a pool's task. */
    private static final String[] POOL_WORKERS = {
        "java.util.concurrent.ThreadPoolExecutor.runWorker", "java.util.concurrent.ForkJoinWorkerThread.run"
    };

    /** Contended entries of a monitor in the run that say it is busy, not held for good. */
    static final double HANDED_OVER = 20;

    @Override public String id() { return "stuck-threads"; }
    @Override public String title() { return "Threads stuck for the whole run (a pool waiting on itself, a deadlock)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> table = ev.table("stuck-threads");
        if (table.isEmpty()) return notAssessed("no table stuck-threads");
        Table t = table.get();
        double seconds = seconds(t);
        Finding.Builder b = finding(Severity.OK).evidence("tables/stuck-threads");
        for (int i = 0; i < t.rows().size(); i++) {
            List<String> stack = Evidence.stack(t, i, "stack");
            boolean poolSelfWait = any(stack, POOL_WORKERS) && any(stack, RESULT_WAITS);
            boolean blocked = "BLOCKED".equals(Evidence.text(t, i, "state"));
            if (!poolSelfWait && !blocked) continue;
            if (!poolSelfWait && changedHands(ev, Evidence.text(t, i, "lockClass"))) continue;
            return stuck(ev, b, t, i, stack, poolSelfWait, seconds);
        }
        return b.summary("no pool worker waited on other tasks, and no thread was blocked on a monitor, for the whole run.").build();
    }

    private static Finding stuck(Evidence ev, Finding.Builder b, Table t, int row, List<String> stack, boolean poolSelfWait, double seconds) {
        Numbers n = new Numbers();
        String ref = "tables/stuck-threads#" + row;
        long threads = (long) t.number(row, "threads");
        long groupSize = (long) t.number(row, "groupSize");
        // Every worker of a pool of two or more: a single thread waiting long (a batch job) is no deadlock.
        boolean all = threads >= groupSize && groupSize >= 2;
        String site = firstApplication(stack);
        String wait = firstMatching(stack, poolSelfWait ? RESULT_WAITS : new String[0]);
        String lock = Evidence.text(t, row, "lockClass");
        String who = n.tag(Fmt.num(threads), ref) + " of the " + n.tag(Fmt.num(groupSize), ref) + " threads of "
                + Evidence.text(t, row, "group");
        String during = Double.isFinite(seconds) ? " for the whole run (" + Fmt.num(seconds) + " s)" : " for the whole run";
        Severity sev = poolSelfWait && all || !poolSelfWait && threads >= 2 ? Severity.CRITICAL : Severity.WARN;
        if (poolSelfWait) {
            b.summary(who + " waited" + during + " in " + Frames.shortName(wait) + " inside their own tasks"
                    + (site == null ? "" : ", at " + site) + (all ? ": every worker waits for tasks that can only run on"
                    + " those same workers, queued behind them (a thread-starvation deadlock)" : "") + ".")
                    .explanation("A task that blocks on the results of other tasks submitted to its own pool holds a worker"
                            + " while those tasks wait in the queue for one. Once every worker holds such a task, nothing in"
                            + " the queue can run again: the pool is stuck for good, and every request that waits on it times"
                            + " out or hangs. JFR and the park tracer record waits when they end; these never end.")
                    .fix("Do not wait inside a pool's task for tasks on the same pool: submit the parts from the caller and"
                            + " join them there, compose them without blocking (CompletableFuture.allOf, thenCombine), or"
                            + " give the parts a pool of their own; bound every get() with a timeout so a stuck pool fails"
                            + " fast instead of hanging.");
        } else {
            b.summary(who + " were blocked on " + lock + during + (site == null ? "" : ", at " + site)
                    + ": a deadlock, or a monitor its holder never gives up.")
                    .explanation("A thread blocked on the same monitor from the first thread dump to the last is waiting for"
                            + " a holder that does not let go: two threads holding what the other wants (a deadlock) or one"
                            + " stuck itself while holding it.")
                    .fix("Find the holder with 'thread -b' and take the locks in one global order, or hold none across"
                            + " a call that can block; java.util.concurrent locks with tryLock and a timeout avoid the hang.");
        }
        return b.severity(sev).score(sev == Severity.CRITICAL ? 1.0 : 0.6).culprit(site).numbers(n.refs())
                .confirm(ev.confirm(poolSelfWait ? "thread --state WAITING" : "thread -b"))
                .explains("lock-contention").explains("request-errors").explains("tail-latency").explains("container-queue")
                .explains("thread-oversubscription")
                .build();
    }

    /**
     * Whether JFR saw the monitor's class entered after contention {@link #HANDED_OVER} times or more
     * in the run: its waiters got it, again and again. Threads found blocked on it in every dump
     * were then queueing for a busy lock (lock-contention's), not stuck: a deadlocked or unreleased
     * monitor is entered by none of its waiters. A blind gRPC service (session 48) made a remote call
     * inside a synchronized method; 4 of its 16 request threads sat blocked in each dump, and the
     * lock changed hands 2,956 times in 20 s.
     */
    private static boolean changedHands(Evidence ev, String lockClass) {
        Optional<Table> locks = ev.rows("locks");
        if (locks.isEmpty() || lockClass.isEmpty()) return false;
        Table l = locks.get();
        for (int i = 0; i < l.rows().size(); i++) {
            if (lockClass.equals(l.text(i, "lockClass")) && "monitor".equals(l.text(i, "kind")) && l.number(i, "events") >= HANDED_OVER) return true;
        }
        return false;
    }

    private static double seconds(Table t) {
        Object start = t.meta().get("startMs"), end = t.meta().get("endMs");
        return start instanceof Number && end instanceof Number
                ? (((Number) end).doubleValue() - ((Number) start).doubleValue()) / 1000 : Double.NaN;
    }

    private static boolean any(List<String> stack, String[] prefixes) {
        return firstMatching(stack, prefixes) != null;
    }

    private static String firstMatching(List<String> stack, String[] prefixes) {
        for (String f : stack) for (String p : prefixes) if (f.startsWith(p)) return f;
        return null;
    }

    private static String firstApplication(List<String> stack) {
        for (String f : stack) if (Frames.isApplication(f)) return f;
        return null;
    }
}
