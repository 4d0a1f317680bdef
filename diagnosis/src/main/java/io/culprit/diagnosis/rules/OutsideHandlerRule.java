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
 * Where a request's time goes relative to its handler: client-observed time, container time,
 * handler time. A large gap below the handler (inside the container: filters, resource checks,
 * mapping) or outside the server (network, accept queue, client) is invisible to the
 * application's own timing (CASES.md #1: handler 18 ms of a 250 ms request).
 */
public final class OutsideHandlerRule implements Rule {
    /** Half of the request outside the handler: the application's own timing misses most of it. */
    static final double SHARE_WARN = 0.5;
    static final double SHARE_CRITICAL = 0.75;
    /** Below 10 ms the gap is sockets and parsing, not a fault. */
    static final double MIN_GAP_MS = 10;
    static final double CRITICAL_GAP_MS = 50;

    @Override public String id() { return "outside-handler"; }
    @Override public String title() { return "Time spent outside the request handler"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> routes = ev.rows("routes");
        if (routes.isEmpty()) return notAssessed("no table routes");
        Table t = routes.get();
        int worst = -1;
        double worstGap = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            double gap = client(t, i) - t.number(i, "handlerMs");
            if (Double.isFinite(gap) && gap > worstGap) { worst = i; worstGap = gap; }
        }
        if (worst < 0) return notAssessed("routes lack client time (meanMs or p50Ms) or handlerMs");
        double client = client(t, worst), handler = t.number(worst, "handlerMs");
        double container = t.number(worst, "containerMs");
        double below = Double.isFinite(t.number(worst, "belowHandlerMs")) ? t.number(worst, "belowHandlerMs") : container - handler;
        double share = worstGap / client;
        String route = t.text(worst, "route");
        Numbers n = new Numbers();
        String row = "tables/routes#" + worst;
        StringBuilder s = new StringBuilder(route + ": client sees " + n.tag(Fmt.ms(client), row) + ", the handler runs " + n.tag(Fmt.ms(handler), row));
        if (Double.isFinite(below)) s.append("; ").append(n.tag(Fmt.ms(below), row)).append(" below the handler in the container");
        if (Double.isFinite(container)) s.append(", ").append(n.tag(Fmt.ms(client - container), row)).append(" outside the server");
        s.append(" (").append(n.tag(Fmt.pct(share), row)).append(" outside the handler)");
        Severity sev = share >= SHARE_CRITICAL && worstGap >= CRITICAL_GAP_MS ? Severity.CRITICAL
                : share >= SHARE_WARN && worstGap >= MIN_GAP_MS ? Severity.WARN : Severity.OK;
        Finding.Builder b = finding(sev).evidence(row).numbers(n.refs());
        if (sev == Severity.OK) return b.summary(s + ".").build();
        boolean serverSide = Double.isFinite(below) && below >= (client - container);
        return b.score(share).culprit(serverSide ? route + " (container, below the handler)" : route + " (outside the server)")
                .summary(s + ".")
                .explanation(serverSide
                        ? "The container spends this time before or after dispatching to the handler (filters,"
                        + " static-resource and mapping checks, reading the body); application timing never sees it."
                        : "The time is spent outside the server process: network, the accept queue, a proxy or the"
                        + " client itself.")
                .fix(serverSide ? "Find the container work per request (trace the container's request processor) and"
                        + " remove or cache it; upgrade the container if it is a known per-request check."
                        : "Measure at each hop (proxy, load balancer, client pool); check the accept backlog and client"
                        + " connection reuse.")
                .confirm(ev.confirm("trace *Processor service --depth 3 '#cost > " + (long) MIN_GAP_MS + "'"))
                .explains("tail-latency")
                .build();
    }

    private static double client(Table t, int row) {
        double mean = t.number(row, "meanMs");
        return Double.isFinite(mean) ? mean : t.number(row, "p50Ms");
    }
}
