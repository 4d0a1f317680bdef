package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.RunBlocking;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * Blocking calls on an event loop's threads (WebFlux on Reactor Netty, Netty, Vert.x): the
 * {@code calls} made there ({@code eventLoopMs}), the sleeps and unprobed I/O waits JFR saw
 * there ({@code request-waits.eventLoop}), and the lock and future waits and Kotlin's runBlocking
 * ({@code locks.eventLoop}). A loop has a thread or two per CPU and serves every
 * connection given to it, so a millisecond blocked is a millisecond of delay for each request
 * queued behind it: latency grows with concurrency while the CPUs idle. A WebFlux service outside
 * the lab that ran a 5 ms JDBC query inside {@code Mono.fromCallable}, and one that slept 10 ms in
 * a handler, both read "no root cause found": no call was slow, nothing was hot, and a loop's
 * stack is too deep for the request entry to show.
 */
public final class EventLoopBlockingRule implements Rule {
    /** A tenth of request time blocked on the loops already delays every request behind them. */
    static final double SHARE_WARN = 0.1;
    static final double SHARE_CRITICAL = 0.3;
    /**
     * Loop-seconds blocked per second of the run. The share of request time understates a block:
     * a request queued behind another's block waits without blocking anything itself, so a Vert.x
     * service whose two loops each sat 70 % of the time in a 20 ms HTTP call read 9 % of request
     * time while its requests took 10× the call. A quarter of one loop thread's time blocked
     * already queues its connections; half of one, CRITICAL.
     */
    static final double LOOP_WARN = 0.25;
    static final double LOOP_CRITICAL = 0.5;

    @Override public String id() { return "event-loop-blocking"; }
    @Override public String title() { return "Blocking calls on event-loop threads"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.rows("calls").filter(t -> has(t, "eventLoopMs"));
        Optional<Table> waits = ev.rows("request-waits").filter(t -> has(t, "eventLoop"));
        Optional<Table> locks = ev.rows("locks").filter(t -> has(t, "eventLoop"));
        if (calls.isEmpty() && waits.isEmpty() && locks.isEmpty()) {
            return notAssessed("no calls.eventLoopMs, request-waits.eventLoop or locks.eventLoop");
        }
        double blockedMs = 0, topMs = 0;
        int topCall = -1, topWait = -1, topLock = -1;
        if (calls.isPresent()) {
            Table t = calls.get();
            for (int i = 0; i < t.rows().size(); i++) {
                double ms = finite(t.number(i, "eventLoopMs"));
                blockedMs += ms;
                if (ms > topMs) { topMs = ms; topCall = i; }
            }
        }
        if (waits.isPresent()) {
            Table t = waits.get();
            for (int i = 0; i < t.rows().size(); i++) {
                double ms = onLoop(t, i, "waitMs");
                blockedMs += ms;
                if (ms > topMs) { topMs = ms; topWait = i; topCall = -1; }
            }
        }
        if (locks.isPresent()) {
            Table t = locks.get();
            for (int i = 0; i < t.rows().size(); i++) {
                double ms = onLoop(t, i, "blockedMs");
                blockedMs += ms;
                if (ms > topMs) { topMs = ms; topLock = i; topCall = -1; topWait = -1; }
            }
        }
        double requests = ev.requestCount();
        double requestMs = ev.requestTimeMs();
        double share = requestMs > 0 ? Math.min(1, blockedMs / requestMs) : Double.NaN;
        double seconds = ev.observedSeconds();
        double perSecond = seconds > 0 ? blockedMs / 1000 / seconds : Double.NaN;
        Numbers n = new Numbers();
        Finding.Builder b = finding(Severity.OK);
        boolean warn = share >= SHARE_WARN || perSecond >= LOOP_WARN;
        if (topCall < 0 && topWait < 0 && topLock < 0 || !warn) {
            return b.evidence(calls.isPresent() ? "tables/calls" : "tables/request-waits")
                    .summary(blockedMs == 0 ? "no call or wait seen on an event loop's threads."
                            : "event-loop threads blocked " + Fmt.ms(blockedMs) + " in all" + (Double.isFinite(share) ? ", "
                            + Fmt.pct(share) + " of request time" : "") + (Double.isFinite(perSecond) ? ", "
                            + Fmt.num(perSecond) + " s per second of the run" : "") + ".").build();
        }
        boolean critical = share >= SHARE_CRITICAL || perSecond >= LOOP_CRITICAL;
        String ref, what, site, kind;
        if (topCall >= 0) {
            Table t = calls.get();
            ref = "tables/calls#" + topCall;
            kind = t.text(topCall, "kind");
            double count = t.number(topCall, "count");
            what = kind + " " + SlowCallsRule.quote(t.text(topCall, "target")) + " (" + n.tag(Fmt.ms(t.number(topCall, "totalMs") / count), ref)
                    + " a call, " + n.tag(Fmt.num(count), ref) + " calls)";
            site = Evidence.text(t, topCall, "caller");
        } else if (topLock >= 0) {
            Table t = locks.get();
            ref = "tables/locks#" + topLock;
            boolean runBlocking = RunBlocking.KIND.equals(t.text(topLock, "kind"));
            kind = runBlocking ? RunBlocking.KIND : "lock";
            what = runBlocking ? "runBlocking, waiting for the coroutine it runs (" + n.tag(Fmt.num(t.number(topLock, "eventLoop")), ref) + " waits)"
                    : "waiting on " + t.text(topLock, "lockClass") + " (" + t.text(topLock, "kind") + ", "
                    + n.tag(Fmt.num(t.number(topLock, "eventLoop")), ref) + " waits)";
            String app = Frames.firstApplication(Evidence.stack(t, topLock, "waiterStack"));
            site = app == null ? "" : app;
        } else {
            Table t = waits.get();
            ref = "tables/request-waits#" + topWait;
            kind = t.text(topWait, "kind");
            what = kind.equals("sleep") ? "Thread.sleep (" + n.tag(Fmt.num(t.number(topWait, "eventLoop")), ref) + " sleeps)"
                    : "a " + kind + " wait on " + t.text(topWait, "target") + " (" + n.tag(Fmt.num(t.number(topWait, "eventLoop")), ref) + " waits)";
            site = Evidence.text(t, topWait, "site");
        }
        double perRequest = requests > 0 ? blockedMs / requests : Double.NaN;
        String occupancy = Double.isFinite(perSecond) && perSecond >= LOOP_WARN
                ? "; the loops sat blocked " + n.tag(Fmt.num(perSecond), ref) + " s per second of the run, as if "
                + (perSecond >= 1 ? Fmt.num(perSecond) + " loop threads never ran" : Fmt.pct(perSecond) + " of one loop thread's time were gone")
                : "";
        return b.severity(critical ? Severity.CRITICAL : Severity.WARN).score(Math.max(Math.max(share, Math.min(1, perSecond)), 0.5)).evidence(ref)
                .culprit(site.isEmpty() ? null : site)
                .summary("event-loop threads were blocked " + n.tag(Fmt.ms(perRequest), ref) + " per request ("
                        + n.tag(Fmt.pct(share), ref) + " of request time), most in " + what + (site.isEmpty() ? "" : " at " + site)
                        + occupancy + ": every request queued on a blocked loop waits for it.")
                .numbers(n.refs())
                .explanation("An event loop has a thread or two per CPU and serves every connection assigned to it: while"
                        + " one of its threads blocks (a JDBC query, a blocking HTTP client, a sleep), no other request on"
                        + " that loop moves. Latency grows with concurrency while the CPUs idle, and wrapping the call in"
                        + " Mono.fromCallable, or calling it from a Vert.x future's compose, does not move it off the loop.")
                .fix(fix(kind))
                .confirm(site.isEmpty() || Frames.classAndMethod(site) == null ? ev.confirm("thread")
                        : ev.confirm("stack " + Frames.classAndMethod(site) + " -n 5") + " (the thread names show the loop)")
                .explains("request-waits").explains("slow-calls").explains("tail-latency").explains("thread-oversubscription")
                .explains("chatty-calls").explains("capped-calls").explains("pool-size").explains("lock-contention")
                .build();
    }

    private static String fix(String kind) {
        String move = "Never block an event loop: move the blocking call to threads made for it"
                + " (Reactor: Mono.fromCallable(...).subscribeOn(Schedulers.boundedElastic()); Vert.x:"
                + " vertx.executeBlocking(..., false) or a WorkerExecutor), ";
        switch (kind) {
            case "sql": return move + "or use a non-blocking driver (R2DBC, the Vert.x SQL client). Reactor's BlockHound finds such calls in tests.";
            case "redis": return move + "or use the reactive Redis API (ReactiveRedisTemplate). Reactor's BlockHound finds such calls in tests.";
            case "lock": return "Never wait on an event loop: a contended lock, or a future's get() or join(), holds the loop"
                    + " until another thread lets go. Compose the future instead (Mono.fromFuture, flatMap), keep locks out of"
                    + " reactive handlers (a non-blocking structure, or the work on Schedulers.boundedElastic()). Reactor's"
                    + " BlockHound finds such calls in tests.";
            case RunBlocking.KIND: return "Never call runBlocking on an event loop's thread (a Ktor handler runs on one): it parks the"
                    + " loop until the coroutine finishes, so the loop serves one request at a time. Make the calling function"
                    + " suspend and call the suspend function directly (Ktor's handlers are coroutines already); blocking work"
                    + " that must stay blocking goes in withContext(Dispatchers.IO) { ... }.";
            case "grpc": return move + "or call it through gRPC's async or future stub, whose answer comes to a listener instead of"
                    + " parking the loop (a blocking stub waits there). Reactor's BlockHound finds such calls in tests.";
            case "sleep": return "Never sleep on an event loop: delay with Mono.delay or delayElement, which park no thread, or"
                    + " move the blocking work to Schedulers.boundedElastic(). Reactor's BlockHound finds such calls in tests.";
            default: return move + "or use a non-blocking client (Spring's or Vert.x's WebClient for HTTP). Reactor's BlockHound finds such calls in tests.";
        }
    }

    /** Whether the table records {@code column}: cases written before it existed are not assessed on it. */
    private static boolean has(Table t, String column) {
        return t.columns().contains(column) || t.rows().get(0).containsKey(column);
    }

    /** A row's {@code column} of time, scaled by the share of its events on event loops. */
    private static double onLoop(Table t, int row, String column) {
        double events = t.number(row, "events");
        double loop = finite(t.number(row, "eventLoop"));
        return events > 0 ? finite(t.number(row, column)) * loop / events : 0;
    }
}
