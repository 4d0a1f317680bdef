package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
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

    @Override public String id() { return "lock-contention"; }
    @Override public String title() { return "Threads contend on a lock"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> locks = ev.table("locks");
        if (locks.isEmpty()) return notAssessed("no table locks");
        Table t = locks.get();
        if (t.isEmpty()) return finding(Severity.OK).evidence("tables/locks").summary("no lock contention recorded.").build();
        int top = 0;
        double blocked = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double ms = t.number(i, "blockedMs");
            if (Double.isFinite(ms)) blocked += ms;
            if (ms > t.number(top, "blockedMs")) top = i;
        }
        double requestMs = ev.requestTimeMs();
        double share = requestMs > 0 ? blocked / requestMs : Double.NaN;
        double threads = blocked / (ev.observedSeconds() * 1000);
        Severity sev = Double.isFinite(share)
                ? share >= SHARE_CRITICAL ? Severity.CRITICAL : share >= SHARE_WARN ? Severity.WARN : Severity.OK
                : threads >= BLOCKED_THREADS_CRITICAL ? Severity.CRITICAL : threads >= BLOCKED_THREADS_WARN ? Severity.WARN : Severity.OK;
        String lock = t.text(top, "lockClass");
        String kind = Evidence.text(t, top, "kind");
        List<String> owner = Evidence.stack(t, top, "ownerStack");
        List<String> waiter = Evidence.stack(t, top, "waiterStack");
        String culprit = Frames.firstNonJdk(owner.isEmpty() ? waiter : owner);
        String ownerThread = Evidence.text(t, top, "ownerThread");
        String weight = "threads spent " + Fmt.ms(blocked) + " blocked" + (Double.isFinite(share) ? " (" + Fmt.pct(share) + " of request time)"
                : " (" + Fmt.num(threads) + " threads blocked on average)");
        Finding.Builder b = finding(sev).evidence("tables/locks#" + top);
        if (sev == Severity.OK) return b.summary(weight + "; top lock " + lock + ".").build();
        return b.score(Double.isFinite(share) ? share : Math.min(1, threads / 10)).culprit(culprit)
                .summary(weight + " on " + lock + " (" + kind + ", " + Fmt.num(t.number(top, "events")) + " events)"
                        + (culprit == null ? "" : ", " + (owner.isEmpty() ? "waiters at " : "held at ") + culprit)
                        + (ownerThread.isEmpty() ? "" : " by " + ownerThread) + ".")
                .explains("tail-latency").explains("request-errors").explains("thread-oversubscription")
                .explanation("Every request that needs this lock waits for the one holding it; the wait grows with"
                        + " concurrency while the CPU stays partly idle. The owner's stack shows the code holding it.")
                .fix("Take the lock off the per-request path (do the work once, cache it, or use a lock-free"
                        + " structure), or shrink the critical section to the shared state only.")
                .confirm(ev.confirm("thread -b") + " or \"profiler start --event lock\"")
                .build();
    }
}
