package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

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
 * A blocking dependency call that only a few requests can make at once: its calls, by Little's law
 * (their time over the run's), kept about k slots busy the whole run for a small k, while many more
 * requests were in flight, and most of each request's time went to nothing culprit measured. The
 * requests were queueing for those k slots (threads allowed to make it): the call is fast, nothing is hot, no pool is short, so
 * no other rule sees it. A blind Vert.x service (session 42) archived each invoice with a blocking
 * HTTP POST of 21 ms inside {@code executeBlocking} with its default {@code ordered = true}: Vert.x
 * ran one such task at a time per context, two contexts ran two, and 16 requests took 181 ms each
 * (1.8 calls in flight on average) where the unordered fix took 46 ms.
 */
public final class CappedCallsRule implements Rule {
    /** Slots this few are a cap someone set (an ordered queue, a pool or semaphore of k, a single thread). */
    static final int MAX_SLOTS = 8;
    /** The slots were busy at least this much of the run: saturated, not merely used. */
    static final double BUSY_MIN = 0.8;
    /** Requests in flight at least this many times the calls: most of them were not in the call. */
    static final double CROWD_MIN = 3;
    /** Share of the requests' time no call accounts for: WARN, CRITICAL. */
    static final double UNEXPLAINED_WARN = 0.5, UNEXPLAINED_CRITICAL = 0.7;
    /**
     * The JVM's share of the machine's CPUs below which the requests' unmeasured time is not spent
     * computing: a CPU-bound service also keeps its calls' concurrency low and its time unexplained.
     */
    static final double JVM_CPU_MAX = 0.5;
    /** Vert.x's queue for the blocking tasks of one context when they are ordered. */
    static final String VERTX_ORDERED = "io.vertx.core.impl.TaskQueue.run";

    @Override public String id() { return "capped-calls"; }
    @Override public String title() { return "A dependency call runs only a few at a time: requests queue for it"; }

    /** What {@link #search} found: a capped call, or why there is none. */
    private interface Outcome { }

    /** The capped call: its row in {@code calls}, its mean concurrency, the requests in flight, their unexplained share. */
    record Cap(int row, double busy, double inFlight, double meanMs, double unexplained) implements Outcome {
        int slots() {
            return CappedCallsRule.slots(busy);
        }
    }

    /** Why there is no cap: the OK finding's text and its evidence, or, with no evidence, why it was not assessed. */
    private record NoCap(String why, String evidence) implements Outcome { }

    /** The capped call this rule reports, or null (see {@link #evaluate} for why not). */
    static Cap find(Evidence ev) {
        Outcome r = search(ev);
        return r instanceof Cap ? (Cap) r : null;
    }

    private static Outcome search(Evidence ev) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return new NoCap("no table calls (the framework probes did not run)", null);
        double requests = ev.requestCount(), requestMs = ev.requestTimeMs(), seconds = ev.observedSeconds();
        if (!(requests > 0 && requestMs > 0 && seconds > 0)) return new NoCap("needs the requests' count and time and the run's length", null);
        double jvmCpu = CpuSaturationRule.jvmShare(ev);
        if (!(jvmCpu < JVM_CPU_MAX)) {
            return new NoCap(Double.isFinite(jvmCpu)
                    ? "the JVM used " + Fmt.pct(jvmCpu) + " of the CPUs: its requests' time is not idle waiting."
                    : "no JVM CPU series: idle waiting not told from computing.", "series/cpu");
        }
        Table t = calls.get();
        double wallMs = seconds * 1000;
        double inFlight = requestMs / wallMs;
        double meanMs = requestMs / requests;
        // SQL through a pool culprit reads is capped by that pool, which its own rules judge.
        boolean poolSeen = ev.has("pools", "dbTotal");
        double explainedMs = 0;
        int best = -1;
        double bestBusy = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            if (SlowCallsRule.background(t, i)) continue;
            double total = finite(t.number(i, "totalMs"));
            explainedMs += total / requests;
            double busy = total / wallMs;
            // A reactive client's call holds no thread while it waits: its concurrency is not a cap on threads.
            if (!(ev.perRequest(t, i) >= 0.5) || busy < BUSY_MIN || !Evidence.text(t, i, "reactiveClient").isEmpty()
                    || poolSeen && "sql".equals(t.text(i, "kind"))) continue;
            int slots = slots(busy);
            if (slots <= MAX_SLOTS && busy >= BUSY_MIN * slots && inFlight >= CROWD_MIN * busy && busy > bestBusy) {
                best = i;
                bestBusy = busy;
            }
        }
        double unexplained = meanMs > 0 ? Math.max(0, 1 - explainedMs / meanMs) : Double.NaN;
        if (best < 0 || !(unexplained >= UNEXPLAINED_WARN)) {
            return new NoCap(best < 0 ? "no call kept a few slots busy the whole run while many more requests were in flight."
                    : "the requests' time is mostly in their calls (" + Fmt.pct(1 - unexplained) + "): no queue before a call.", "tables/calls");
        }
        return new Cap(best, bestBusy, inFlight, meanMs, unexplained);
    }

    @Override
    public Finding evaluate(Evidence ev) {
        Outcome found = search(ev);
        if (found instanceof NoCap) {
            NoCap no = (NoCap) found;
            return no.evidence == null ? notAssessed(no.why) : finding(Severity.OK).evidence(no.evidence).summary(no.why).build();
        }
        Cap cap = (Cap) found;
        Table t = ev.rows("calls").orElseThrow();
        int best = cap.row;
        double bestBusy = cap.busy, inFlight = cap.inFlight, meanMs = cap.meanMs, unexplained = cap.unexplained;
        double requests = ev.requestCount(), seconds = ev.observedSeconds();
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        Numbers n = new Numbers();
        String ref = "tables/calls#" + best;
        int slots = slots(bestBusy);
        double callMs = t.number(best, "totalMs") / t.number(best, "count");
        String caller = Evidence.text(t, best, "caller");
        String path = Evidence.text(t, best, "callPath");
        boolean ordered = orderedVertxTasks(ev, caller);
        boolean okHttp = !ordered && okHttpDispatcher(ev, t.text(best, "kind"), slots);
        String target = t.text(best, "kind") + " " + SlowCallsRule.quote(t.text(best, "target"));
        // In Vert.x's ordered queue the cap is the code that submitted the task: the caller's own caller.
        String culprit = ordered && path.contains(" ← ") ? path.substring(path.indexOf(" ← ") + 3) : caller;
        // Calls run on OkHttp's own threads name no caller: the code that waits for their futures made them.
        if (Frames.stripLine(culprit).isEmpty() || culprit.equals("(unknown)")) culprit = LockContentionRule.handOffWaiter(ev);
        if (path.equals("(unknown)")) path = "";
        return b.severity(unexplained >= UNEXPLAINED_CRITICAL || okHttp ? Severity.CRITICAL : Severity.WARN).score(okHttp ? Math.max(0.45, unexplained) : 0.45)
                .evidence(ref)
                .culprit(culprit == null || culprit.isEmpty() ? null : culprit)
                .summary("calls to " + target + " ran " + n.tag(Fmt.num(bestBusy), ref) + " at a time on average, about "
                        + slots + " slot" + (slots == 1 ? "" : "s") + " always busy, while " + n.tag(Fmt.num(inFlight), ev.requestsRef("rps"))
                        + " requests were in flight: each request spent " + n.tag(Fmt.ms(callMs), ref) + " in the call and "
                        + Fmt.pct(unexplained) + " of its " + n.tag(Fmt.ms(meanMs), ev.requestsRef(ev.has("requests", "meanMs") ? "meanMs" : "p50Ms"))
                        + " in nothing measured, queueing for a slot" + (path.isEmpty() ? "" : " (" + path + ")")
                        + (okHttp ? "; the calls run on OkHttp's dispatcher threads (enqueue), and its Dispatcher runs at most 5"
                        + " calls to one host at a time by default (maxRequestsPerHost)" : "") + ".")
                .numbers(n.refs())
                .explanation("By Little's law, calls that take " + Fmt.ms(callMs) + " at " + Fmt.num(requests / seconds)
                        + " a second keep " + Fmt.num(bestBusy) + " in flight: the throughput is what " + slots
                        + " concurrent call" + (slots == 1 ? "" : "s") + " allow" + (slots == 1 ? "s" : "") + ", and the other requests wait"
                        + " their turn without using a CPU or a connection, which is why nothing looks busy. "
                        + (ordered ? "The calls run in Vert.x's ordered task queue (TaskQueue.run): executeBlocking with its default"
                        + " ordered = true runs the blocking tasks of one context one after another, however many worker threads"
                        + " the pool has, so the service runs as many at once as it has contexts (verticle instances)."
                        : okHttp ? "OkHttp's asynchronous calls (Call.enqueue) wait in its Dispatcher's ready queue until fewer than"
                        + " maxRequestsPerHost (5 by default) calls to the same host, and fewer than maxRequests (64) in all, are running:"
                        + " a service that fans out to one partner runs 5 of its calls at a time, whatever its threads and connection pool."
                        : "Something lets only " + slots + " of them run at once: an ordered task queue, a pool, semaphore or"
                        + " rate limiter of " + slots + ", a synchronized client, or " + slots + " thread" + (slots == 1 ? "" : "s") + " doing them."))
                .fix(ordered ? "Run the blocking tasks unordered: vertx.executeBlocking(callable, false) (or a WorkerExecutor sized"
                        + " for the calls), or use a non-blocking client so no worker thread is needed."
                        : okHttp ? "Raise the Dispatcher's limits on the client the calls share: Dispatcher d = new Dispatcher();"
                        + " d.setMaxRequestsPerHost(n); d.setMaxRequests(m); new OkHttpClient.Builder().dispatcher(d) (n at least the"
                        + " calls the partner should see at once: rate × call time), and size the ConnectionPool to match."
                        : "Find what admits only " + slots + " (the callers' threads in a thread dump, a pool's or semaphore's size)"
                        + " and let the calls run concurrently, or make them non-blocking.")
                .confirm(ev.confirm("thread") + " during load (who runs the calls, and how many)")
                .explains("tail-latency").explains("lock-contention")
                .build();
    }

    /** OkHttp's default per-host limit. */
    static final int OKHTTP_PER_HOST = 5;

    /**
     * Whether the capped calls are OkHttp's asynchronous ones at its Dispatcher's default per-host
     * limit: HTTP calls kept at 5 in flight, run by {@code RealCall$AsyncCall} on OkHttp's own
     * threads. A blind Javalin service (session 45) fanned out 6 calls a request with enqueue: 16
     * requests' calls ran 4.9 at a time, and its verdict read "work handed to other threads",
     * fix "Hystrix … SEMAPHORE".
     */
    private static boolean okHttpDispatcher(Evidence ev, String kind, int slots) {
        if (!"http".equals(kind) || slots != OKHTTP_PER_HOST) return false;
        return ev.cpuShare(f -> f.startsWith("okhttp3.internal.connection.RealCall$AsyncCall.run")) > 0;
    }

    /** Slots a saturated cap of {@code busy} mean calls in flight has. */
    private static int slots(double busy) {
        return (int) Math.ceil(busy - 0.05);
    }

    /** Whether the profile runs the caller inside Vert.x's ordered queue for blocking tasks. */
    private static boolean orderedVertxTasks(Evidence ev, String caller) {
        String method = caller.isEmpty() ? null : Frames.classAndMethod(caller);
        if (method == null) return false;
        Optional<CpuProfile> p = ev.cpuProfileIfAny();
        if (p.isEmpty()) return false;
        String dotted = method.replace(' ', '.');
        CpuProfile under = p.get().only(st -> {
            boolean queue = false;
            for (String f : st) {
                if (f.startsWith(VERTX_ORDERED)) queue = true;
                else if (queue && f.startsWith(dotted)) return true;
            }
            return false;
        });
        return under.samples() > 0;
    }
}
