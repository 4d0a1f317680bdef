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
import java.util.List;

/**
 * Requests that run a background executor's tasks themselves: a ThreadPoolExecutor whose queue is
 * full hands each new task back to its submitter under {@code CallerRunsPolicy}, so the request
 * thread that meant to hand the work off does it inline, with whatever it waits on. Read from the
 * waits (db-waits, request-waits) whose stacks run through {@code CallerRunsPolicy.rejectedExecution}
 * and from the CPU samples under it. A service outside the lab that wrote an audit record per order
 * through one writer thread (queue 50) did 1,850 req/s against 19,000 with batched writes, and
 * read db-row-lock "likely a row lock" on an INSERT nobody else locked.
 */
public final class CallerRunsRule implements Rule {
    static final double SHARE_WARN = 0.1;
    static final double SHARE_CRITICAL = 0.3;
    static final String REJECTED = "java.util.concurrent.ThreadPoolExecutor$CallerRunsPolicy.rejectedExecution";
    private static final String[] WAIT_TABLES = {"db-waits", "request-waits"};

    @Override public String id() { return "caller-runs"; }
    @Override public String title() { return "Requests run a full executor's tasks themselves (CallerRunsPolicy)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        CpuProfile p = ev.cpuProfileIfAny().orElse(null);
        if (p == null && ev.rows("db-waits").isEmpty() && ev.rows("request-waits").isEmpty()) {
            return notAssessed("needs the cpu profile or the tables db-waits and request-waits");
        }
        double waitMs = 0, top = 0;
        String topRef = null;
        List<String> topStack = null;
        for (String name : WAIT_TABLES) {
            Table t = ev.rows(name).orElse(null);
            if (t == null) continue;
            for (int i = 0; i < t.rows().size(); i++) {
                List<String> stack = Evidence.stack(t, i, "stack");
                if (!Frames.mentions(stack, REJECTED)) continue;
                double ms = t.number(i, "waitMs");
                if (!Double.isFinite(ms)) continue;
                waitMs += ms;
                if (ms > top) {
                    top = ms;
                    topRef = "tables/" + name + "#" + i;
                    topStack = stack;
                }
            }
        }
        double cpuShare = p == null || p.samples() == 0 ? 0 : p.share(f -> f.startsWith(REJECTED));
        Finding.Builder b = finding(Severity.OK).evidence(topRef != null ? topRef : "profiles/cpu.collapsed");
        if (topStack == null && cpuShare == 0) {
            return b.summary("no request ran a rejected executor task itself (CallerRunsPolicy).").build();
        }
        double requestMs = ev.requestTimeMs();
        double waitShare = requestMs > 0 ? Math.min(1, waitMs / requestMs) : Double.NaN;
        double share = Math.max(Double.isFinite(waitShare) ? waitShare : 0, cpuShare);
        Numbers n = new Numbers();
        String task = topStack == null ? null : task(topStack);
        String submitter = topStack == null ? null : submitter(topStack);
        String what = "requests ran tasks of a full executor themselves (ThreadPoolExecutor.CallerRunsPolicy)"
                + (task == null ? "" : ": " + Frames.stripLine(task) + (submitter == null ? "" : ", submitted at " + submitter))
                + (topRef == null ? "" : ", waiting " + n.tag(Fmt.ms(waitMs), topRef)
                + (Double.isFinite(waitShare) ? " (" + n.tag(Fmt.pct(waitShare), topRef) + " of request time)" : "") + " in them")
                + (cpuShare > 0 ? "; " + n.tag(Fmt.pct(cpuShare), "profiles/cpu.collapsed") + " of CPU samples ran under the rejection" : "")
                + queued(ev, n);
        if (share < SHARE_WARN) return b.summary(what + ": too small a share to matter.").numbers(n.refs()).build();
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share)
                .culprit(submitter != null ? submitter : task)
                .summary(what + ".")
                .numbers(n.refs())
                .explanation("The executor was meant to take this work off the request path, but its queue was full: with"
                        + " CallerRunsPolicy a rejected task runs on the thread that submitted it, so the request does the"
                        + " work it handed off, and waits for whatever that work waits for. The executor's threads cannot keep"
                        + " up with the rate the requests submit at, so the queue stays full and most tasks run this way.")
                .fix("Give the work the throughput it needs instead of a bigger queue: batch it (one writer draining the"
                        + " queue into one statement or call per batch), or add threads only up to what the dependency takes;"
                        + " if the work may be lost under overload, reject it (DiscardPolicy with a counter, or a bounded offer"
                        + " that drops) rather than run it on the request thread; and size the queue for bursts, not for"
                        + " a rate the workers cannot sustain.")
                .confirm(ev.confirm("pools") + " (the executor's queue at its bound)")
                .explains("db-row-lock").explains("slow-calls").explains("request-waits").explains("pool-size")
                .explains("pool-starvation").explains("tail-latency").explains("chatty-calls")
                .build();
    }

    /** "; the application executors' queue held 50 tasks in 95 % of windows" from pools#executorQueued, or "". */
    private static String queued(Evidence ev, Numbers n) {
        return ev.stats("pools", "executorQueued").filter(s -> s.max() > 0)
                .map(s -> "; the application executors' queues held up to " + n.tag(Fmt.num(s.max()), "series/pools#executorQueued") + " tasks")
                .orElse("");
    }

    /** The first application frame on the leaf side of the rejection: the task (leaf-first stack). */
    static String task(List<String> leafFirst) {
        int at = indexOf(leafFirst);
        for (int i = at - 1; i >= 0; i--) if (Frames.isApplication(leafFirst.get(i))) return firstOfRun(leafFirst, i);
        return null;
    }

    /** The first application frame on the caller side of the rejection: who submitted the task. */
    static String submitter(List<String> leafFirst) {
        int at = indexOf(leafFirst);
        for (int i = at + 1; i < leafFirst.size(); i++) if (Frames.isApplication(leafFirst.get(i))) return leafFirst.get(i);
        return null;
    }

    /** From a task's lambda frame, the deepest application frame of the same run (the method it calls). */
    private static String firstOfRun(List<String> leafFirst, int from) {
        int i = from;
        while (i > 0 && Frames.isApplication(leafFirst.get(i - 1))) i--;
        return leafFirst.get(i);
    }

    private static int indexOf(List<String> stack) {
        for (int i = 0; i < stack.size(); i++) if (stack.get(i).startsWith(REJECTED)) return i;
        return -1;
    }
}
