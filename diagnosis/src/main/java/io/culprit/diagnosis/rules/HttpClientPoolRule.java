package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * Outbound HTTP calls that wait for a connection from their client's own pool: Apache HttpClient
 * 5 keeps at most 5 connections per route and 25 in all unless configured, so a service calling
 * one dependency from more request threads than that queues its calls inside the client. The
 * call's time then reads as the dependency's: a service outside the lab whose partner answered in
 * 22 ms spent 68 ms per call and got slow-calls' "the service is as fast as this dependency",
 * with the fix to speed the dependency up. Read from {@code calls.poolWaitMs}, the time the agent
 * measured in the client's lease ({@code InternalExecRuntime.acquireEndpoint}) inside each call.
 */
public final class HttpClientPoolRule implements Rule {
    /** A tenth of request time queued for the client's connections is worth a configuration change. */
    static final double SHARE_WARN = 0.1;
    static final double SHARE_CRITICAL = 0.3;

    @Override public String id() { return "http-client-pool"; }
    @Override public String title() { return "Calls wait for the HTTP client's own connection pool"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (the framework probes did not run)");
        Table t = calls.get();
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"http".equals(t.text(i, "kind")) || !(t.number(i, "poolWaitMs") > 0)) continue;
            if (top < 0 || t.number(i, "poolWaitMs") > t.number(top, "poolWaitMs")) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (top < 0) return b.summary("no HTTP call waited for a connection from its client's pool.").build();
        String ref = "tables/calls#" + top;
        double waitMs = t.number(top, "poolWaitMs"), totalMs = t.number(top, "totalMs"), count = t.number(top, "count");
        double requestMs = ev.requestTimeMs();
        double share = requestMs > 0 ? Math.min(1, waitMs / requestMs) : Double.NaN;
        Numbers n = new Numbers();
        String caller = Evidence.text(t, top, "caller");
        String target = t.text(top, "target");
        String what = "calls to " + SlowCallsRule.quote(target) + " waited " + n.tag(Fmt.ms(waitMs / count), ref)
                + " each for a connection from the HTTP client's own pool (" + n.tag(Fmt.pct(waitMs / totalMs), ref)
                + " of the call's time" + (Double.isFinite(share) ? ", " + n.tag(Fmt.pct(share), ref) + " of request time" : "")
                + "); the dependency itself took " + n.tag(Fmt.ms((totalMs - waitMs) / count), ref) + " per call"
                + (caller.isEmpty() ? "" : ", called from " + caller);
        if (!(share >= SHARE_WARN)) return b.summary(what + ": too small a share to be the cause.").numbers(n.refs()).build();
        double seconds = ev.observedSeconds();
        String inFlight = seconds > 0 ? "; the calls in flight averaged " + n.tag(Fmt.num(totalMs / 1000 / seconds), ref)
                + ", of which " + n.tag(Fmt.num((totalMs - waitMs) / 1000 / seconds), ref) + " held a connection" : "";
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).evidence(ref)
                .culprit(caller.isEmpty() ? target : caller)
                .summary(what + inFlight + ".")
                .numbers(n.refs())
                .explanation("An HTTP client lends each call a pooled connection and makes the others wait when the pool's"
                        + " limit for the route is reached. The call's time then includes that queue, and it reads as a slow"
                        + " dependency, while the dependency answers as fast as ever.")
                .fix("Size the client's pool to the calls in flight to this route: Apache HttpClient 5 allows 5"
                        + " connections per route and 25 in all by default; raise them with"
                        + " PoolingHttpClientConnectionManagerBuilder.setMaxConnPerRoute and setMaxConnTotal (for RestTemplate"
                        + " or RestClient, on the HttpClient given to HttpComponentsClientHttpRequestFactory), and keep a"
                        + " connection-request timeout so that a slow dependency fails calls fast instead of queueing every"
                        + " request behind it.")
                .confirm(ev.confirm("calls"))
                .explains("slow-calls").explains("capped-calls").explains("tail-latency").explains("thread-oversubscription")
                .build();
    }
}
