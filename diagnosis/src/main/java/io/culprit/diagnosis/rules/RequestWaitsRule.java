package io.culprit.diagnosis.rules;

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
 * Requests that wait off the CPU where no other hypothesis looks: in a sleep (a back-off, a
 * throttle, a polling loop), on a socket or file that no framework probe times (a client
 * culprit does not know), or for a reply such a client's own I/O thread reads ({@link ReplyWait}). A service outside the lab whose requests slept 15 ms of their 16 got
 * "no root cause found", as did one whose requests read a raw TCP backend for 30 ms of their 31:
 * nothing was hot, nothing contended, no known call was slow. JFR saw both waits with their stacks.
 * A sleep in a method whose own call failed is named as the back-off of a retry, and a sleep
 * inside a rate limiter as the service throttling itself.
 */
public final class RequestWaitsRule implements Rule {
    /** A fifth of the mean request spent waiting there is worth a fix. */
    static final double SHARE_WARN = 0.2;
    /** Half of it: the wait is the request. */
    static final double SHARE_CRITICAL = 0.5;

    @Override public String id() { return "request-waits"; }
    @Override public String title() { return "Requests sleep or wait on I/O no probe times"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> table = ev.table("request-waits");
        if (table.isEmpty()) return notAssessed("no table request-waits");
        double requests = ev.requestCount();
        double meanMs = ev.meanLatencyMs();
        if (!(requests > 0) || !(meanMs > 0)) return notAssessed("needs the request count and their latency");
        Table t = table.get();
        // A wait for a reply read by the client's own thread is in the locks table (JFR names its notifier there).
        Optional<Table> locks = ev.rows("locks");
        int reply = locks.map(ReplyWait::top).orElse(-1);
        if (reply >= 0 && (t.isEmpty() || locks.get().number(reply, "blockedMs") > t.number(0, "waitMs"))) {
            return replyWait(ev, locks.get(), reply, requests, meanMs);
        }
        if (t.isEmpty()) {
            return finding(Severity.OK).evidence("tables/request-waits")
                    .summary("no request thread slept or waited on unprobed I/O over JFR's thresholds (1 ms sleeps, 5 ms I/O).").build();
        }
        String kind = t.text(0, "kind");
        String target = t.text(0, "target");
        String site = t.text(0, "site");
        double perRequestMs = t.number(0, "waitMs") / requests;
        double share = Math.min(1, perRequestMs / meanMs);
        Numbers n = new Numbers();
        String ref = "tables/request-waits#0";
        String what = kind.equals("sleep") ? "slept " + n.tag(Fmt.ms(perRequestMs), ref) + " per request in Thread.sleep"
                : "waited " + n.tag(Fmt.ms(perRequestMs), ref) + " per request " + (kind.equals("socket")
                        ? "on the socket to " + target + ", which no probe times,"
                        : kind.equals("fsync") ? "forcing writes to disk (fsync of " + target + ")" : "on file I/O (" + target + ")");
        String summary = "request threads " + what + " at " + site + ": " + n.tag(Fmt.pct(share), ref) + " of the mean request's "
                + Fmt.ms(meanMs) + " (" + n.tag(Fmt.num(t.number(0, "events")), ref) + " waits, the longest "
                + n.tag(Fmt.ms(t.number(0, "maxMs")), ref) + ")";
        Finding.Builder b = finding(Severity.OK).evidence("tables/request-waits").evidence("series/requests#rps");
        if (share < SHARE_WARN) return b.summary(summary + ": too small a share to be the cause.").numbers(n.refs()).build();
        boolean delayedAck = DelayedAck.matches(t, 0);
        if (delayedAck) {
            summary += String.format(DelayedAck.CLAUSE, n.tag(Fmt.ms(t.number(0, "minMs")), ref),
                    Fmt.ms(t.number(0, "waitMs") / t.number(0, "events")), Fmt.ms(DelayedAck.TIMER_MS));
        }
        boolean smallWrites = kind.equals("file") && smallWrites(Evidence.stack(t, 0, "stack"));
        if (smallWrites) {
            summary += "; the waits are writes of a few bytes each (a DataOutputStream's values straight onto the file, no buffer"
                    + " between): a system call per value, queued on the file";
        }
        int retried = kind.equals("sleep") ? failingCallOf(ev, site) : -1;
        if (retried >= 0) {
            Table calls = ev.table("calls").orElseThrow();
            String cref = "tables/calls#" + retried;
            double errors = calls.number(retried, "errors"), count = calls.number(retried, "count");
            summary += "; the same method's " + calls.text(retried, "kind") + " " + SlowCallsRule.quote(calls.text(retried, "target"))
                    + " failed " + n.tag(Fmt.num(errors), cref) + " of " + n.tag(Fmt.num(count), cref) + " calls ("
                    + Fmt.pct(errors / count) + "): the sleeps are a retry's back-off";
        }
        RetryBackoff.Retry backoff = kind.equals("sleep") && retried < 0
                ? RetryBackoff.of(ev, Evidence.stack(t, 0, "stack")).orElse(null) : null;
        if (backoff != null) summary += backoffClause(ev, backoff, n);
        String limiter = kind.equals("sleep") ? rateLimiter(Evidence.stack(t, 0, "stack")) : null;
        if (limiter != null) {
            double rps = ev.stats("requests", "rps").map(s -> s.mean()).orElse(Double.NaN);
            summary += "; the sleeps are a rate limiter's (" + Frames.shortName(limiter) + ")"
                    + (Double.isFinite(rps) ? ", which let " + n.tag(Fmt.num(rps), "series/requests#rps") + " requests/s through" : "");
        }
        String cls = Frames.classAndMethod(site);
        String confirm = cls == null ? null : ev.confirm("trace " + cls + " '#cost > " + Fmt.num(Math.max(1, Math.floor(perRequestMs / 2)))
                + "'") + " (the time each call of " + Frames.shortName(site) + " spends there)";
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).numbers(n.refs())
                .summary(summary + ".").culprit(backoff != null && backoff.retried() != null ? backoff.retried() : site)
                .explains("tail-latency").explains("container-queue").explains("thread-oversubscription")
                .explanation(delayedAck ? DelayedAck.EXPLANATION : kind.equals("sleep")
                        ? "A request thread that sleeps adds the sleep to its response and holds its server thread meanwhile:"
                                + " the container can serve no more requests at once than it has threads, whatever the CPUs do."
                        : "The requests wait for a dependency reached through a client culprit's probes do not time, so no"
                                + " call table shows it; JFR's I/O events do, with the code that waited.")
                .fix(delayedAck ? DelayedAck.FIX : smallWrites ? HotCallee.Kind.SINGLE_BYTE_IO.fix : limiter != null
                        ? "The service throttles itself: " + Frames.shortName(limiter) + " makes each request sleep until a"
                                + " permit is due, so throughput stops at the limiter's rate and latency is the queue in front of it."
                                + " If the limit protects a dependency, set it to what that dependency can take; reject what is over"
                                + " the limit at once (tryAcquire, answering 429 with Retry-After) instead of holding a request"
                                + " thread asleep; and remove a limit that protects nothing."
                        : backoff != null && backoff.clientError()
                        ? "Retry only what a second attempt can change: exclude client errors (HTTP 4xx, here "
                                + simpleName(ev.rows("exceptions").orElseThrow().text(backoff.exception(), "type"))
                                + ") from the retry, with Spring's @Retryable(excludes = HttpClientErrorException.class) or includes"
                                + " naming the transient failures (timeouts, connection errors, 5xx), Resilience4j's ignoreExceptions,"
                                + " Failsafe's handleIf; and take an expected answer (a 404 for \"no match\") as a result, not an"
                                + " exception (RestClient's onStatus or exchange)."
                        : retried >= 0 || backoff != null
                        ? "The dependency fails, and each failure costs the request a sleep: fix or fail fast on its errors (a"
                                + " circuit breaker stops calling a dependency that keeps failing), and retry without holding the"
                                + " request thread: fewer attempts with a short, jittered and capped back-off, or the retry on a"
                                + " scheduler with the response completed asynchronously."
                        : kind.equals("fsync") ? HotCallee.Kind.FSYNC.fix
                        : kind.equals("sleep")
                        ? "Do not sleep on a request thread: retry on a scheduler or asynchronously, reject instead of"
                                + " waiting when throttling (a rate limiter's tryAcquire), or answer asynchronously"
                                + " (DeferredResult, CompletableFuture); if the wait must stay, shorten it."
                        : "Make the wait shorter or rarer: cache what " + target + " answers, batch the calls, call it"
                                + " asynchronously or in parallel with the rest of the request, and give it a timeout.")
                .confirm(confirm)
                .build();
    }

    private static String simpleName(String type) {
        return type.substring(type.lastIndexOf('.') + 1);
    }

    /** "; the sleeps are the back-off of a retry (…) around X.m, whose call threw T 2.9 times a request (…)…". */
    private static String backoffClause(Evidence ev, RetryBackoff.Retry r, Numbers n) {
        String clause = "; the sleeps are the back-off of a retry (" + r.library() + ")"
                + (r.retried() == null ? "" : " around " + Frames.stripLine(r.retried()));
        if (r.exception() < 0) return clause;
        Table x = ev.rows("exceptions").orElseThrow();
        String ref = "tables/exceptions#" + r.exception();
        String message = Evidence.text(x, r.exception(), "message");
        return clause + ", whose call threw " + x.text(r.exception(), "type") + " " + n.tag(Fmt.num(x.number(r.exception(), "perRequest")), ref)
                + " times a request" + (message.isEmpty() ? "" : " (\"" + (message.length() > 80 ? message.substring(0, 80) + "…" : message) + "\")")
                + (r.clientError() ? ": a client error, the server's answer to the request, which no retry turns into a success" : "");
    }

    /** Whether a wait's stack (leaf first) is a primitive's bytes written onto a file with no buffer between. */
    private static boolean smallWrites(java.util.List<String> leafFirst) {
        String[] rootFirst = Frames.rootFirst(leafFirst);
        int app = HotCallee.deepestApplication(rootFirst);
        return app >= 0 && HotCallee.smallUnbufferedWrite(rootFirst, app);
    }

    /** The finding for a reply wait, row {@code i} of the locks table, the largest wait of the requests. */
    private Finding replyWait(Evidence ev, Table locks, int i, double requests, double meanMs) {
        String ref = "tables/locks#" + i;
        double perRequestMs = locks.number(i, "blockedMs") / requests;
        double share = Math.min(1, perRequestMs / meanMs);
        String client = Frames.stripLine(ReplyWait.client(locks, i));
        String caller = ReplyWait.caller(locks, i);
        String owner = Evidence.text(locks, i, "ownerThread");
        Numbers n = new Numbers();
        String reader = ReplyWait.reader(locks, i);
        String summary = "request threads waited " + n.tag(Fmt.ms(perRequestMs), ref) + " per request in " + client
                + (caller == null ? "" : " (called at " + caller + ")") + " for replies that "
                + (reader == null ? "the client's own threads deliver"
                        : (owner.isEmpty() ? "another thread" : "thread '" + owner + "'") + " reads off a socket at " + Frames.stripLine(reader))
                + ", which no probe times: " + n.tag(Fmt.pct(share), ref)
                + " of the mean request's " + Fmt.ms(meanMs) + " (" + n.tag(Fmt.num(locks.number(i, "events")), ref) + " waits of "
                + Fmt.ms(locks.number(i, "blockedMs") / locks.number(i, "events")) + " on average)";
        Finding.Builder b = finding(Severity.OK).evidence(ref).evidence("series/requests#rps");
        if (share < SHARE_WARN) return b.summary(summary + ": too small a share to be the cause.").numbers(n.refs()).build();
        String site = caller == null ? client : caller;
        String cls = Frames.classAndMethod(client);
        java.util.List<String> waiter = Evidence.stack(locks, i, "waiterStack");
        boolean temporary = waiter.stream().anyMatch(f -> f.startsWith(TEMPORARY_REPLIES));
        String topology = topology(waiter);
        if (temporary) summary += "; the template declares a reply queue for each call, consumes from it and cancels"
                + " (RabbitTemplate.doSendAndReceiveWithTemporary): three broker round trips more per request";
        else if (topology != null) summary += "; the wait is " + topology + ": broker topology set up per request";
        b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).numbers(n.refs())
                .summary(summary + ".").culprit(Frames.stripLine(site))
                .explains("lock-contention").explains("tail-latency").explains("container-queue").explains("thread-oversubscription")
                .explanation("Each request makes a remote call and waits for its answer: the client writes on the request's thread"
                        + " and its own I/O thread reads the reply, then wakes the request. The request pays a round trip plus"
                        + " whatever the peer does before it answers (a broker's confirm waits for its disk), and holds its"
                        + " server thread meanwhile. No probe times this client, so no call table shows it; "
                        + (reader == null ? "the wait's blocker is the client's own, for its replies."
                                : "JFR's waits name the notifier, and the notifier's stack shows it reading the socket."))
                .fix("Take the wait off the request path: have the reply delivered asynchronously (a listener or callback"
                        + " the client offers), wait once for many (batch the calls or their acknowledgements), or hand the work"
                        + " to a background sender (an outbox) and answer at once; if the request must wait, bound the wait with"
                        + " a timeout and keep the peer's own work per call small.")
                .confirm(cls == null ? null : ev.confirm("monitor " + cls + " -c 5") + " (calls of " + Frames.shortName(client)
                        + " and their time)");
        if (temporary) {
            b.explanation("RabbitTemplate's request-reply with temporary reply queues (setUseTemporaryReplyQueues(true), or a"
                    + " broker without direct reply-to) declares an exclusive queue per call, starts a consumer on it, publishes,"
                    + " waits, and cancels the consumer so the broker deletes the queue: each of those is a round trip on the"
                    + " connection, and a queue created and deleted in the broker's metadata store, on every request.")
                    .fix("Use direct reply-to, RabbitTemplate's default (setUseTemporaryReplyQueues(false)): replies come on the"
                            + " amq.rabbitmq.reply-to pseudo-queue with no declare or cancel; or a fixed reply queue with a reply"
                            + " listener container (setReplyAddress and a RabbitTemplate registered as its listener).");
        } else if (topology != null) {
            b.fix("Declare queues, exchanges, bindings and long-lived consumers once, at start-up (Spring AMQP's Declarables and"
                    + " listener containers do), and reuse them; per request, only publish and consume.");
        }
        return b.build();
    }

    private static final String TEMPORARY_REPLIES = "org.springframework.amqp.rabbit.core.RabbitTemplate.doSendAndReceiveWithTemporary";
    private static final java.util.List<String> TOPOLOGY = java.util.List.of("queueDeclare", "queueDelete", "queueBind", "exchangeDeclare",
            "exchangeDelete", "basicConsume", "basicCancel");

    /** "a queue declared (ChannelN.queueDeclare)" when the waiter sits in a RabbitMQ channel's topology method; else null. */
    static String topology(java.util.List<String> waiterStack) {
        for (String f : waiterStack) {
            if (!f.startsWith("com.rabbitmq.client.impl.ChannelN.")) continue;
            String m = Frames.stripLine(f).substring("com.rabbitmq.client.impl.ChannelN.".length());
            return TOPOLOGY.contains(m) ? "in ChannelN." + m : null;
        }
        return null;
    }

    /**
     * Rate limiters that sleep for their permits: Guava's RateLimiter (through Uninterruptibles),
     * Bucket4j's blocking consume, Resilience4j's RateLimiter.
     */
    private static final String[] RATE_LIMITERS = {
        "com.google.common.util.concurrent.RateLimiter.", "com.google.common.util.concurrent.SmoothRateLimiter.",
        "io.github.bucket4j.", "io.github.resilience4j.ratelimiter."
    };

    /** The outermost rate limiter frame of a wait's stack (top frame first), or null. */
    private static String rateLimiter(java.util.List<String> stack) {
        String found = null;
        for (String f : stack) if (Frames.startsWithAny(f, RATE_LIMITERS)) found = Frames.stripLine(f);
        return found;
    }

    /**
     * A call made by the sleeping method that failed: the sleep is the back-off between its
     * attempts. The call with the most errors, or -1.
     */
    private static int failingCallOf(Evidence ev, String site) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return -1;
        Table t = calls.get();
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!(t.number(i, "errors") > 0) || !Frames.stripLine(Evidence.text(t, i, "caller")).equals(site)) continue;
            if (best < 0 || t.number(i, "errors") > t.number(best, "errors")) best = i;
        }
        return best;
    }
}
