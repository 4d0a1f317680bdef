package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.diagnosis.internal.LoadJson;
import io.culprit.model.Finding;
import io.culprit.model.Severity;

/**
 * The server closes the connection after its responses (Connection: close), so every request
 * opens a new one: a TCP handshake (and a TLS handshake behind HTTPS), a new socket accepted,
 * registered and torn down, for work keep-alive does once per client. Read from culprit's load
 * generator, which asks HTTP/1.1 keep-alive and counts the responses after which the connection
 * was closed; without culprit's load (observe mode) the rule has no evidence. A Spring Boot service
 * outside the lab with {@code server.tomcat.max-keep-alive-requests=1} served 12,400 req/s
 * against 18,200 with the default and read "no root cause found".
 */
public final class KeepAliveRule implements Rule {
    /** A fifth of the responses closing their connection is a setting, not the odd idle timeout. */
    static final double SHARE_WARN = 0.2;
    static final double MIN_RESPONSES = 100;

    @Override public String id() { return "keep-alive-refused"; }
    @Override public String title() { return "The server closes connections after responses (no keep-alive)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        double[] closed = LoadJson.closedByServer(ev.caseFile().dir());
        if (closed == null) return notAssessed("needs load.json from culprit's load generator (summary.closed_by_server)");
        double share = closed[1] > 0 ? closed[0] / closed[1] : Double.NaN;
        Numbers n = new Numbers();
        String what = "the server closed the connection after " + n.tag(Fmt.num(closed[0]), "load.json") + " of "
                + n.tag(Fmt.num(closed[1]), "load.json") + " successful responses"
                + (Double.isFinite(share) ? " (" + n.tag(Fmt.pct(share), "load.json") + ")" : "");
        Finding.Builder b = finding(Severity.OK).evidence("load.json");
        if (!(closed[1] >= MIN_RESPONSES) || !(share >= SHARE_WARN)) {
            return b.summary(what + ": connections are kept alive.").numbers(n.refs()).build();
        }
        return b.severity(Severity.WARN).score(share * 0.5)
                .culprit("the server's keep-alive settings")
                .summary(what + " though the client asked to keep it alive (HTTP/1.1): "
                        + (share >= 0.99 ? "every request" : "that share of requests") + " paid for a new connection.")
                .numbers(n.refs())
                .explanation("A connection closed after each response makes the next request open another: a TCP"
                        + " handshake (plus a TLS one behind HTTPS), and on the server an accept, a new socket registered"
                        + " with the poller and one torn down, for work keep-alive does once per client. Under load it costs"
                        + " CPU on both sides, fills the machine's TIME_WAIT table, and adds a round trip to every request's"
                        + " latency on a real network.")
                .fix("Keep connections alive: on Tomcat, server.tomcat.max-keep-alive-requests (100 by default; -1 for no"
                        + " limit, never 1) and server.tomcat.keep-alive-timeout; on Jetty the idle timeout; on Undertow"
                        + " server.undertow.always-set-keep-alive. Check that no filter or proxy in front sets Connection:"
                        + " close on responses and that clients speak HTTP/1.1 or later.")
                .confirm("curl -sv -o /dev/null http://… 2>&1 | grep -i '^< connection' (the server's Connection header)")
                .explains("cpu-saturation").explains("outside-handler")
                .build();
    }
}
