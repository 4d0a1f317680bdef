package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.diagnosis.internal.LoadJson;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * Requests waiting for a container thread. A request that finds every worker busy waits in the
 * container's queue before any of the service's code runs; the probes time a request from when
 * a worker takes it ({@code CoyoteAdapter.service}), so only the client sees that wait. The
 * signature: the container's pool full in (nearly) every window, and the clients' service time
 * (the load generator's, from the actual send) far above the container's own time. A service
 * with 4 Tomcat threads and a 90 ms dependency served its clients in 705 ms: slow-calls alone
 * said "as fast as this dependency", and outside-handler compares the container with the
 * handler, both inside the server.
 */
public final class ContainerQueueRule implements Rule {
    /** Windows with every container thread busy, of the windows where the pool was read. */
    static final double FULL_SHARE = 0.8;
    static final int MIN_WINDOWS = 5;
    /** Clients waiting at least this long beyond the container's time, and at least as long again. */
    static final double MIN_WAIT_MS = 50;
    /** Half the clients' time spent queued: the pool, not the work, sets the latency. */
    static final double SHARE_CRITICAL = 0.5;

    @Override public String id() { return "container-queue"; }
    @Override public String title() { return "Requests queue for a container thread"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Evidence.Fill> fill = ev.fill("pools", "containerBusy", "containerMax");
        Optional<Table> routes = ev.rows("routes");
        double clientMs = LoadJson.serviceMeanMs(ev.caseFile().dir());
        if (fill.isEmpty() && ev.onVirtualThreads()) {
            // No worker pool to queue for: the container starts a virtual thread per request.
            return finding(Severity.OK).evidence("series/pools#containerVirtual")
                    .summary("the container runs each request on a virtual thread of its own: no worker pool to queue for.")
                    .build();
        }
        if (fill.isEmpty() || routes.isEmpty() || !Double.isFinite(clientMs)) {
            return notAssessed("needs series pools#containerBusy and #containerMax, table routes and the load's service time");
        }
        int read = fill.get().windows;
        double threads = fill.get().capacity;
        if (read < MIN_WINDOWS) return notAssessed("the container pool was read in " + read + " windows, fewer than " + MIN_WINDOWS);
        double serverMs = containerMeanMs(routes.get());
        if (!Double.isFinite(serverMs)) return notAssessed("routes carry no container time");
        double fullShare = fill.get().share();
        double waitMs = clientMs - serverMs;
        double share = waitMs / clientMs;
        Numbers n = new Numbers();
        // The clients' figures come from load.json, which the page has no element for: printed, not linked.
        String times = "clients waited " + Fmt.ms(clientMs) + " for responses the container served in "
                + n.tag(Fmt.ms(serverMs), "tables/routes");
        String pool = "all " + n.tag(Fmt.num(threads), "series/pools#containerMax") + " container threads busy in "
                + n.tag(Fmt.pct(fullShare), "series/pools#containerBusy") + " of " + read + " windows";
        Finding.Builder b = finding(Severity.OK).evidence("series/pools#containerBusy");
        if (fullShare < FULL_SHARE || waitMs < Math.max(MIN_WAIT_MS, serverMs)) {
            return b.summary(times + "; " + pool + ": no queue in front of the container.").numbers(n.refs()).build();
        }
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share)
                .evidence("tables/routes").culprit("container thread pool (" + Fmt.num(threads) + " threads)")
                .summary(pool + ", and " + times + ": " + Fmt.pct(share) + " of their time queued for a thread.")
                .numbers(n.refs())
                .explains("slow-calls").explains("capped-calls").explains("outside-handler").explains("tail-latency").explains("thread-oversubscription")
                .explanation("A request that finds every worker busy waits in the container's queue before any of the"
                        + " service's code runs, and the server's own timings start when a worker takes it: only the"
                        + " clients see the wait. The pool caps throughput at threads ÷ request time, whatever the CPUs could do.")
                .fix("Give the container threads for its concurrency (Tomcat: server.tomcat.threads.max, about rps ×"
                        + " request time with headroom), or free them sooner: make the slow part faster, or handle it"
                        + " asynchronously (DeferredResult, CompletableFuture, WebFlux) so a waiting request holds no thread.")
                .confirm(ev.confirm("pools") + " (the container pool's busy threads)")
                .build();
    }

    /** The container's mean time per request over all routes, weighted by their counts. */
    private static double containerMeanMs(Table t) {
        double sum = 0, count = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double c = t.number(i, "count");
            double ms = t.number(i, "containerMs");
            if (!Double.isFinite(ms)) ms = t.number(i, "meanMs");
            if (!Double.isFinite(c) || !Double.isFinite(ms)) continue;
            sum += c * ms;
            count += c;
        }
        return count > 0 ? sum / count : Double.NaN;
    }
}
